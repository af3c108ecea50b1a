package upicollect

// sentinels is the set of sentinel errors an *APIError matches.
type sentinels uint16

const (
	isUnauthorized sentinels = 1 << iota
	isDuplicate
	isInvalid
	isNotFound
	isRateLimited
	isServer
	isUnexpected
	isOutcomeUnknown
	isAmountMismatch
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
	matches sentinels
	// retry says, by safety (readOnly, keyedCreate, unkeyedCreate), whether
	// a call may be repeated after it.
	retry [3]bool
	// ambiguous: a create may have taken effect before it was answered so.
	ambiguous bool
	// transient names a failure that may pass ("rate limited"); "" for one
	// that will not.
	transient string
	// retryAfter: the answer's Retry-After header says when to come back.
	retryAfter bool
}

// Retry rows of the table.
var (
	never         = [3]bool{}
	unlessUnkeyed = [3]bool{readOnly: true, keyedCreate: true}
)

// codeTable is the one table of what a status code means (the body's error
// code when it names one, the HTTP status otherwise): the sentinels its
// error matches, whether a read, a keyed create and an unkeyed create may
// repeat it, whether a create may have taken effect, and whether
// Retry-After is honoured. The first row whose range holds the code
// applies. judge (answer.go) is the only reader of it; the package doc's
// Retries section and every operation's faults list say the same, and
// TestDocFaultClaims holds them to it.
//
// A 429 or a 5xx may come after the service made the order (a proxy or a
// load balancer answered for it, or the service failed after writing):
// ambiguous for every create. An unkeyed create is never repeated after an
// answer: a repeat could make a second order.
var codeTable = []struct {
	from, to int
	meaning
}{
	{401, 401, meaning{matches: isUnauthorized, retry: never}},
	{403, 403, meaning{matches: isUnauthorized, retry: never}},
	{404, 404, meaning{matches: isNotFound, retry: never}},
	{409, 409, meaning{matches: isDuplicate, retry: never}},
	{429, 429, meaning{matches: isRateLimited, retry: unlessUnkeyed, ambiguous: true, transient: "rate limited", retryAfter: true}},
	{400, 499, meaning{matches: isInvalid, retry: never}},
	{500, 500, meaning{matches: isServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error"}},
	{502, 502, meaning{matches: isServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error"}},
	{503, 503, meaning{matches: isServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error", retryAfter: true}},
	{504, 504, meaning{matches: isServer, retry: unlessUnkeyed, ambiguous: true, transient: "server error"}},
	{500, 599, meaning{matches: isServer, retry: never}}, // 501, 505...: not transient
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
