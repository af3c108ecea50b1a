package sandbox

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// RecordedRequest is one request the server received, with secrets removed.
type RecordedRequest struct {
	Time   time.Time
	Method string
	Path   string
	// Op is the API operation (OpCreatePaymentIntent, ...) or "" for hosted
	// pages, QR images and control endpoints.
	Op string
	// Header is the request header with Authorization (and
	// Proxy-Authorization) reduced to its scheme and "[REDACTED]" ("Basic
	// [REDACTED]"), and the merchant's credentials, in every form the SDK
	// also hides (the header value, the key pair in any base64, the secret,
	// each also percent-encoded or JSON-escaped), replaced by "[REDACTED]"
	// in every other value.
	Header http.Header
	// Form holds the body's fields, whether sent form-encoded, multipart or
	// as JSON (numbers as written), plus URL query values, with the same
	// secrets removed. It is at most 4 KiB; longer values are cut. Bodies
	// are kept only for API calls with valid credentials: Form is nil for
	// other requests without a query.
	Form url.Values
	// FormTruncated reports that Form was cut to its size limit.
	FormTruncated bool
	// Status is the HTTP status answered; 0 when the connection was reset or
	// the request ended before an answer.
	Status int
	// Fault reports that a scripted fault applied to the request.
	Fault bool

	size int // bytes it holds, for the log's cap
}

// maxRecordedForm bounds the body fields kept per request.
const maxRecordedForm = 4 << 10

// requestLog keeps the most recent requests within a byte budget and,
// optionally, a count.
type requestLog struct {
	mu       sync.Mutex
	reqs     []*RecordedRequest
	bytes    int
	maxBytes int
	maxCount int
	rd       *redact.Filter
}

func newRequestLog(maxBytes, maxCount int, rd *redact.Filter) *requestLog {
	return &requestLog{maxBytes: maxBytes, maxCount: maxCount, rd: rd}
}

// add records r with its body fields (nil: none kept) and returns the
// record for the status to be filled in later.
func (l *requestLog) add(r *http.Request, fields map[string]string, now time.Time) *RecordedRequest {
	rec := &RecordedRequest{
		Time:   now,
		Method: r.Method,
		Path:   l.rd.Text(r.URL.Path),
		Op:     apiOp(r.URL.Path),
		Header: l.rd.Header(r.Header),
	}
	rec.Form, rec.FormTruncated = l.form(r.URL.Query(), fields)
	rec.size = recordSize(rec)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, rec)
	l.bytes += rec.size
	for len(l.reqs) > 1 && (l.bytes > l.maxBytes || l.maxCount > 0 && len(l.reqs) > l.maxCount) {
		l.bytes -= l.reqs[0].size
		l.reqs[0] = nil
		l.reqs = l.reqs[1:]
	}
	return rec
}

// form merges query and body fields, redacted and cut to maxRecordedForm.
func (l *requestLog) form(query url.Values, fields map[string]string) (url.Values, bool) {
	if fields == nil && len(query) == 0 {
		return nil, false
	}
	all := url.Values{}
	for k, vs := range query {
		all[k] = vs
	}
	for k, v := range fields {
		all.Add(k, v)
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out, left, cut := url.Values{}, maxRecordedForm, false
	for _, k := range keys {
		for _, v := range all[k] {
			v = l.rd.Text(v)
			room := left - len(k)
			if room <= 0 {
				return out, true
			}
			if len(v) > room {
				v, cut = v[:room], true
			}
			left -= len(k) + len(v)
			out.Add(k, v)
		}
	}
	return out, cut
}

// recordSize estimates the bytes rec holds.
func recordSize(rec *RecordedRequest) int {
	n := 128 + len(rec.Method) + len(rec.Path) + len(rec.Op)
	for k, vs := range rec.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 16
		}
	}
	for k, vs := range rec.Form {
		for _, v := range vs {
			n += len(k) + len(v) + 16
		}
	}
	return n
}

// markFault records that a scripted fault applies to rec.
func (l *requestLog) markFault(rec *RecordedRequest) {
	l.mu.Lock()
	rec.Fault = true
	l.mu.Unlock()
}

// finish fills in what was answered.
func (l *requestLog) finish(rec *RecordedRequest, status int) {
	l.mu.Lock()
	rec.Status = status
	l.mu.Unlock()
}

// snapshot returns copies of the records, oldest first.
func (l *requestLog) snapshot() []RecordedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]RecordedRequest, len(l.reqs))
	for i, r := range l.reqs {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Form = cloneValues(r.Form)
	}
	return out
}

// storedBytes is what the log holds now, by recordSize.
func (l *requestLog) storedBytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}

func (l *requestLog) clear() {
	l.mu.Lock()
	l.reqs, l.bytes = nil, 0
	l.mu.Unlock()
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// apiOp returns the operation a path names, or "".
func apiOp(path string) string {
	op, ok := strings.CutPrefix(path, apiPrefix)
	if _, known := opFields[op]; ok && known {
		return op
	}
	return ""
}
