package harness

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/answers"
)

// The SDK's parameters, the same fields the hand-written callers send.
var (
	intentParams = upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: intentOrderID,
		RedirectURL: "https://shop.example.com/return", Note: "Order ORD-1001", Customer: customer}
	requestParams = upicollect.RequestParams{Amount: upicollect.Rupees(499), OrderID: requestOrder,
		VPA: "ravi@okaxis", Note: "Order ORD-2001", Customer: customer}
	linkParams = upicollect.LinkParams{Amount: upicollect.Rupees(499), Note: "Invoice 42", Customer: customer}
)

// SDKCaller calls through an upicollect.Client.
type SDKCaller struct{ Client *upicollect.Client }

// NewSDK returns the SDK's caller with its default HTTP client, as a
// merchant gets it, plus opts. What is measured is that default client,
// whatever connection bound it has.
func NewSDK(baseURL string, opts ...upicollect.Option) (*SDKCaller, error) {
	c, err := upicollect.NewClient(Creds, append([]upicollect.Option{upicollect.WithBaseURL(baseURL)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &SDKCaller{Client: c}, nil
}

// Call makes op's call.
func (s *SDKCaller) Call(ctx context.Context, op Op) error {
	var err error
	switch op {
	case Status:
		_, err = s.Client.CheckPaymentStatus(ctx, statusOrderID)
	case Intent:
		_, err = s.Client.CreatePaymentIntent(ctx, &intentParams)
	case Request:
		_, err = s.Client.CreatePaymentRequest(ctx, &requestParams)
	default:
		_, err = s.Client.CreatePaymentLink(ctx, &linkParams)
	}
	return err
}

// CloseIdleConnections closes the client's idle connections where the SDK
// offers it (Client.CloseIdleConnections); otherwise a run's idle
// connections close at the transport's idle timeout.
func (s *SDKCaller) CloseIdleConnections() {
	if c, ok := any(s.Client).(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// NewInMemorySDK returns the SDK's caller over an in-memory transport that
// answers as the fixed server does: the SDK's encoding and decoding with
// no network. The transport itself costs 3 allocations a call (the
// response, its body reader and closer).
func NewInMemorySDK() (*SDKCaller, error) {
	hc := &http.Client{Transport: memTransport{answers: answers.ByPath(), header: http.Header{"Content-Type": {"application/json"}}}}
	return NewSDK("http://127.0.0.1:1", upicollect.WithHTTPClient(hc))
}

type memTransport struct {
	answers map[string][]byte
	header  http.Header // shared, read-only
}

func (m memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	body, ok := m.answers[req.URL.Path]
	status := http.StatusOK
	if !ok {
		status = http.StatusNotFound
	}
	return &http.Response{
		StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: m.header, ContentLength: int64(len(body)),
		Body: io.NopCloser(bytes.NewReader(body)), Request: req,
	}, nil
}
