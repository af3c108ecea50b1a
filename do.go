package upicollect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/upicollect/upicollect-go/internal/wire"
)

// Do calls an endpoint this SDK does not wrap, such as a newer operation:
// path is below the base URL ("/v1/payments/refund"), form the body fields
// (mid is added when absent). The answer is decoded like the wrapped
// operations'; on success the envelope's data object, if any, is
// unmarshalled into out (when out is not nil) and the raw answer is in the
// returned *Response. A failure envelope returns *APIError with that
// Response too.
//
// API: POST {path}
//
// Do cannot know whether the endpoint is safe to repeat, so it retries as
// CreatePaymentLink does: only when the request provably never reached the
// service (DNS or connect failure). After it went out, a timeout, a reset,
// a 429, 500, 502, 503 or 504 returns ErrOutcomeUnknown; a refusal (a 4xx,
// or a 5xx such as 501 that no retry could change) does not. The context
// bounds the whole call.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 1 attempt, then ErrRateLimited and ErrOutcomeUnknown
//   - 500, 502, 503 and 504: 1 attempt, then ErrServer and ErrOutcomeUnknown
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 1 attempt, then ErrOutcomeUnknown
func (c *Client) Do(ctx context.Context, path string, form url.Values, out any) (*Response, error) {
	c.mustInit()
	var chk checker
	op := strings.TrimPrefix(path, "/")
	if i := strings.LastIndex(op, "/"); i >= 0 {
		op = op[i+1:]
	}
	u, err := url.Parse(path)
	switch {
	case err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//"):
		// Never an absolute URL: the credentials go to the base URL's host only.
		chk.add("path", "must be a path below the base URL, starting with /")
	case strings.Contains(path, "..") || strings.Contains(u.Path, "..") || u.RawQuery != "" || u.Fragment != "":
		// u.Path too: "%2e%2e" is ".." once a server decodes it.
		chk.add("path", "must not contain '..', a query or a fragment")
	}
	if err := chk.err(op); err != nil {
		return nil, err
	}
	f := url.Values{}
	for k, v := range form {
		f[k] = append([]string(nil), v...)
	}
	if f.Get("mid") == "" {
		f.Set("mid", c.creds.MID)
	}
	cl := c.newCall(op, path, f.Get("order_id"), unkeyedCreate, f.Encode())
	var kept *Response // kept when the data does not fit out
	_, err = invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (struct{}, error) {
		kept = resp
		if out != nil && env.Data != nil {
			if err := json.Unmarshal(env.Data, out); err != nil {
				return struct{}{}, fmt.Errorf("data: %w", err)
			}
		}
		return struct{}{}, nil
	})
	return kept, err
}
