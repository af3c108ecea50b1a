package upicollect

import (
	"net/http"
	"time"
)

// Response is the raw HTTP answer behind a result or an *APIError, for
// logging, support tickets and fields this SDK does not model.
type Response struct {
	HTTPStatus int
	Header     http.Header
	Body       []byte        // raw body as received, capped at 1 MiB
	Attempts   int           // attempts made by the call, retries included
	Duration   time.Duration // from the first attempt to the end of the last
}
