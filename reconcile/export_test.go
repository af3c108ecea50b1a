package reconcile

// ScanChunk is scanChunk, for the external tests.
const ScanChunk = scanChunk

// NewChunkedMemoryStore is NewMemoryStore with chunked called after each
// chunk of a scan (List, Prune), without the store's lock, with the number
// of orders the chunk read.
func NewChunkedMemoryStore(chunked func(read int)) Store { return newMemStore(chunked) }
