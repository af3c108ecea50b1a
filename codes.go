package upicollect

// kind is a set of sentinels an *APIError matches.
type kind uint16

const (
	kindUnauthorized kind = 1 << iota
	kindDuplicate
	kindInvalid
	kindNotFound
	kindRateLimited
	kindServer
	kindUnexpected
	kindOutcomeUnknown
	kindAmountMismatch
)

// safety says what repeating a request may do, which decides what is retried.
type safety int

const (
	// readOnly calls (the status check) change nothing: repeat on any
	// transient failure.
	readOnly safety = iota
	// keyedCreate calls carry an order_id: the service refuses a second
	// order with it, so a repeat after an ambiguous failure is safe, and a 409
	// then means "an earlier attempt may have created it".
	keyedCreate
	// unkeyedCreate calls could create a second order if repeated: repeat
	// only when the request provably never left.
	unkeyedCreate
)

// meaning is what a failed answer's status code says.
type meaning struct {
	kinds kind
	// retry says, by safety (readOnly, keyedCreate, unkeyedCreate), whether
	// a call may be repeated after it.
	retry [3]bool
	// ambiguous: a create may have taken effect before it was answered so.
	ambiguous bool
	// transient names a failure that may pass ("rate limited"); "" for one
	// that will not.
	transient string
}

// Retry rows of the table.
var (
	never         = [3]bool{}
	unlessUnkeyed = [3]bool{readOnly: true, keyedCreate: true}
)

// codeTable is the one table of what a status code means (the body's error
// code when it names one, the HTTP status otherwise): its error kinds and
// whether a read, a keyed create and an unkeyed create may repeat it. The
// first row whose range holds the code applies.
//
// A 429 or a 5xx may come after the service made the order (a proxy or a
// load balancer answered for it, or the service failed after writing):
// ambiguous for every create. An unkeyed create is never repeated after an
// answer: a repeat could make a second order.
var codeTable = []struct {
	from, to int
	meaning
}{
	{401, 401, meaning{kinds: kindUnauthorized, retry: never}},
	{403, 403, meaning{kinds: kindUnauthorized, retry: never}},
	{404, 404, meaning{kinds: kindNotFound, retry: never}},
	{409, 409, meaning{kinds: kindDuplicate, retry: never}},
	{429, 429, meaning{kinds: kindRateLimited, retry: unlessUnkeyed, ambiguous: true, transient: "rate limited"}},
	{400, 499, meaning{kinds: kindInvalid, retry: never}},
	{500, 500, meaning{kinds: kindServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error"}},
	{502, 504, meaning{kinds: kindServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error"}},
	{500, 599, meaning{kinds: kindServer, retry: never}}, // 501, 505...: not transient
}

// meaningOf looks code up in codeTable; a code in no row (1xx to 3xx, or
// none at all) means nothing by itself.
func meaningOf(code int) meaning {
	for _, row := range codeTable {
		if code >= row.from && code <= row.to {
			return row.meaning
		}
	}
	return meaning{}
}
