package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Paths the sandbox serves.
const (
	apiPrefix   = "/v1/payments/"
	pagePrefix  = "/sandbox/pay/"
	qrPrefix    = "/sandbox/qr/"
	ordersPath  = "/sandbox/orders"
	maxBodySize = 1 << 20
)

// routes builds the handler: every request is tracked for Close, its body
// read once, recorded, routed, and logged.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(apiPrefix+"{op}", s.serveAPI)
	mux.HandleFunc("GET "+pagePrefix+"{id}", s.servePage)
	mux.HandleFunc("GET "+qrPrefix+"{file}", s.serveQR)
	mux.HandleFunc("GET "+ordersPath, s.serveOrders)
	mux.HandleFunc("GET "+ordersPath+"/{id}", s.serveOrder)
	mux.HandleFunc("POST "+ordersPath+"/{id}/pay", s.servePay)
	mux.HandleFunc("GET /{$}", s.serveIndex)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.enter() {
			http.Error(w, "sandbox closed", http.StatusServiceUnavailable)
			return
		}
		defer s.leave()
		start := time.Now()
		info := &reqInfo{}
		info.body, info.bodyErr = readBody(w, r)
		if info.bodyErr == nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
			info.fields, info.parseErr = parseFields(r.Header.Get("Content-Type"), info.body)
		}
		info.rec = s.record(r, info.fields)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			s.finish(info.rec, sw.status, info.fault)
			if l := s.cfg.logger; l != nil {
				l.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("method", r.Method), slog.String("path", info.rec.Path),
					slog.String("op", info.rec.Op), slog.Int("status", sw.status),
					slog.Duration("duration", time.Since(start)))
			}
		}()
		mux.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
	})
}

// reqInfo is what the wrapper learnt about a request, for the handlers.
type reqInfo struct {
	body     []byte
	bodyErr  error
	fields   map[string]string
	parseErr error
	rec      *RecordedRequest
	fault    bool
}

type infoKey struct{}

func infoOf(r *http.Request) *reqInfo {
	if i, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		return i
	}
	return &reqInfo{}
}

var errBodyTooLarge = errors.New("request body too large")

// readBody reads the whole body, refusing more than maxBodySize.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodySize))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errBodyTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// statusWriter remembers the status written; Unwrap lets
// http.ResponseController reach Flush and Hijack underneath.
type statusWriter struct {
	http.ResponseWriter
	status int
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

// baseURL is where absolute links point: WithPublicURL, or the request's
// own scheme and Host so that links work behind Handler() too.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.publicURL != "" {
		return s.cfg.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
