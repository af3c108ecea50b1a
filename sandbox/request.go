package sandbox

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Body limits: an API body is refused over maxBodySize; control bodies are
// small forms and JSON.
const (
	maxBodySize        = 1 << 20
	maxControlBodySize = 64 << 10
)

// request is what was read of a request, handed to the route.
type request struct {
	op       string // the API operation, "" elsewhere
	authed   bool   // valid Basic credentials (API routes)
	body     []byte // nil unless authenticated or a control call
	form     form   // the body's fields
	bodyErr  error
	parseErr error
	rec      *RecordedRequest
	at       time.Time // sandbox time it arrived: what the quota judges
}

var errBodyTooLarge = errors.New("request body too large")

// read fills req from r and records the request.
func (s *Service) read(w http.ResponseWriter, r *http.Request, rt route, req *request) {
	limit := int64(maxControlBodySize)
	if rt.api {
		req.op = r.PathValue("op")
		req.authed = s.authorized(r)
		s.stats.request(req.op)
		limit = maxBodySize
	}
	if rt.api && !req.authed {
		// Never hold what an unauthenticated caller sends; read it only so
		// that the caller gets its answer on a healthy connection.
		_, req.bodyErr = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, limit))
	} else if r.Method != http.MethodGet && r.Method != http.MethodHead {
		req.body, req.bodyErr = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	}
	var mbe *http.MaxBytesError
	if errors.As(req.bodyErr, &mbe) {
		req.bodyErr = errBodyTooLarge
	}
	if req.bodyErr == nil && req.body != nil {
		req.form, req.parseErr = parseFields(r.Header.Get("Content-Type"), req.body)
	}
	// Only an authenticated call's body is kept: what anyone else sends
	// stays out of memory.
	var keep map[string]string
	if req.authed {
		keep = req.form.vals
	}
	req.rec = s.log.add(r, keep, req.at)
}

// finish records the answer's status and logs the request.
func (s *Service) finish(r *http.Request, x *statusWriter, start time.Time) {
	req := x.req
	if req.rec == nil {
		return
	}
	s.log.finish(req.rec, x.status)
	if req.op != "" && x.status != 0 {
		s.stats.answer(x.status)
	}
	if l := s.cfg.logger; l != nil {
		l.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", req.rec.Path),
			slog.String("op", req.rec.Op), slog.Int("status", x.status),
			slog.Duration("duration", time.Since(start)))
	}
}

// serveNotFound answers a path under the API that names no operation.
func (s *Service) serveNotFound(w http.ResponseWriter, _ *http.Request) {
	s.writeAPI(w, http.StatusNotFound, failure(s.variantSet(), http.StatusNotFound, "Not found"))
}

// statusWriter is one request's writer: it remembers the status written and
// carries what was read of the request from ServeHTTP to the route. Unwrap
// lets http.ResponseController reach Flush, Hijack and deadlines
// underneath.
type statusWriter struct {
	http.ResponseWriter
	status int
	req    *request
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
