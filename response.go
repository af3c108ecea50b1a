package upicollect

import (
	"net/http"
	"time"
)

// Response is the raw HTTP answer behind a result or an *APIError, for
// logging, support tickets and fields this SDK does not model.
type Response struct {
	// HTTPStatus is the answer's HTTP status code.
	HTTPStatus int
	// Header is the answer's HTTP header.
	Header http.Header
	// Body is the body as received, capped at 1 MiB, with any echo of the
	// client's credentials (the Authorization header, its base64 pair, the
	// secret key) replaced by [REDACTED].
	Body []byte
	// Attempts is how many attempts the call made, retries included.
	Attempts int
	// Duration is the time from the first attempt to the end of the last.
	Duration time.Duration
}
