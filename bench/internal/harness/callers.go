package harness

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/upicollect/upicollect-go"
)

// Op is one of the service's four operations.
type Op string

// The operations, by short name.
const (
	Status  Op = "status"
	Intent  Op = "intent"
	Request Op = "request"
	Link    Op = "link"
)

// Ops lists every operation, the status check first.
var Ops = []Op{Status, Intent, Request, Link}

// Impl names a way of calling the service.
type Impl string

// The implementations compared.
const (
	SDK   Impl = "sdk"   // this SDK with its default client
	Floor Impl = "floor" // hand-written net/http + encoding/json, tuned transport
	Naive Impl = "naive" // http.PostForm on http.DefaultClient, decoded into a map
	Resty Impl = "resty" // github.com/go-resty/resty/v2
)

// Impls lists every implementation.
var Impls = []Impl{SDK, Floor, Naive, Resty}

// Caller makes one call of an operation and reports whether it succeeded.
type Caller interface {
	Call(ctx context.Context, op Op) error
	// CloseIdleConnections closes the caller's idle connections, so that
	// the next run starts cold.
	CloseIdleConnections()
}

// Creds are the benchmark's credentials; the fixed server ignores them.
var Creds = upicollect.Credentials{MID: "MID0000001", PublicKey: "pk_bench_0001", SecretKey: "sk_bench_0001"}

// The fixed server's answers carry these identifiers.
const (
	statusOrderID = "ORD-3001"
	intentOrderID = "ORD-1001"
	requestOrder  = "ORD-2001"
)

var paths = map[Op]string{
	Status:  "/v1/payments/checkPaymentStatus",
	Intent:  "/v1/payments/createPaymentIntent",
	Request: "/v1/payments/createPaymentRequest",
	Link:    "/v1/payments/createPaymentLink",
}

var customer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}

// fields are the form fields each operation sends, in the SDK's order.
var fields = map[Op][][2]string{
	Status: {{"mid", Creds.MID}, {"order_id", statusOrderID}},
	Intent: {{"mid", Creds.MID}, {"amount", "499"}, {"order_id", intentOrderID},
		{"redirect_url", "https://shop.example.com/return"}, {"note", "Order ORD-1001"},
		{"customer_name", customer.Name}, {"customer_email", customer.Email}, {"customer_mobile", customer.Mobile}},
	Request: {{"mid", Creds.MID}, {"amount", "499"}, {"order_id", requestOrder}, {"vpa", "ravi@okaxis"},
		{"note", "Order ORD-2001"}, {"customer_name", customer.Name}, {"customer_email", customer.Email},
		{"customer_mobile", customer.Mobile}},
	Link: {{"mid", Creds.MID}, {"amount", "499"}, {"note", "Invoice 42"},
		{"customer_name", customer.Name}, {"customer_email", customer.Email}, {"customer_mobile", customer.Mobile}},
}

// formValues is the body the hand-written callers send, built per call as
// such code does (the same allocations as a url.Values literal).
func formValues(op Op) url.Values {
	f := fields[op]
	v := make(url.Values, len(f))
	for _, kv := range f {
		v[kv[0]] = []string{kv[1]}
	}
	return v
}

// restyForm is the body for resty, built per call likewise.
func restyForm(op Op) map[string]string {
	f := fields[op]
	m := make(map[string]string, len(f))
	for _, kv := range f {
		m[kv[0]] = kv[1]
	}
	return m
}

// NewCaller returns impl's caller of the service at baseURL.
func NewCaller(impl Impl, baseURL string) (Caller, error) {
	switch impl {
	case SDK:
		return NewSDK(baseURL)
	case Floor:
		return &floor{c: &http.Client{Transport: TunedTransport()}, base: baseURL, auth: basicAuth()}, nil
	case Naive:
		return &naive{base: baseURL}, nil
	case Resty:
		c := resty.New().SetBaseURL(baseURL).SetHeader("Authorization", basicAuth())
		return &restyCaller{c: c}, nil
	}
	return nil, fmt.Errorf("unknown implementation %q", impl)
}

func basicAuth() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(Creds.PublicKey+":"+Creds.SecretKey))
}

// TunedTransport is the floor's transport: a clone of the default one with
// idle room for every caller and connections bounded per host.
func TunedTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	t.MaxConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// The typed answers the floor and resty decode into.
type (
	statusAnswer struct {
		envelope
		TxnStatus string `json:"txnStatus"`
		Data      struct {
			Amount  json.Number `json:"amount"`
			UTR     string      `json:"UTR"`
			OrderID string      `json:"order_id"`
		} `json:"data"`
	}
	intentAnswer struct {
		envelope
		Data struct {
			Intent    string `json:"intent"`
			AppA      string `json:"app_a"`
			AppB      string `json:"app_b"`
			AppC      string `json:"app_c"`
			DynamicQR string `json:"dynamicQR"`
			Expiry    string `json:"expiry"`
			Amount    string `json:"amount"`
			OrderID   string `json:"orderId"`
		} `json:"data"`
	}
	requestAnswer struct {
		envelope
		Data struct {
			OrderID    string `json:"orderId"`
			PaymentURL string `json:"payment_url"`
		} `json:"data"`
	}
	linkAnswer struct {
		envelope
		Data struct {
			PaymentLink string `json:"payment_link"`
		} `json:"data"`
	}
	envelope struct {
		Status     bool   `json:"status"`
		StatusCode int    `json:"statusCode"`
		Msg        string `json:"msg"`
	}
)

func (e *envelope) ok() bool { return e.Status && e.StatusCode == http.StatusOK }

type answer interface{ ok() bool }

func newAnswer(op Op) answer {
	switch op {
	case Status:
		return &statusAnswer{}
	case Intent:
		return &intentAnswer{}
	case Request:
		return &requestAnswer{}
	}
	return &linkAnswer{}
}

var errRefused = errors.New("the service refused the call")

// floor is what a careful engineer writes by hand with net/http.
type floor struct {
	c    *http.Client
	base string
	auth string
}

func (f *floor) Call(ctx context.Context, op Op) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+paths[op], strings.NewReader(formValues(op).Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", f.auth)
	res, err := f.c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", res.StatusCode)
	}
	ans := newAnswer(op)
	if err := json.Unmarshal(body, ans); err != nil {
		return err
	}
	if !ans.ok() {
		return errRefused
	}
	return nil
}

func (f *floor) CloseIdleConnections() { f.c.CloseIdleConnections() }

// naive is the shortest code that works: http.PostForm on the default
// client, the answer decoded into a map. (http.PostForm cannot set the
// Authorization header; the fixed server does not check it.)
type naive struct{ base string }

func (n *naive) Call(_ context.Context, op Op) error {
	res, err := http.PostForm(n.base+paths[op], formValues(op))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		return err
	}
	if m["status"] != true {
		return errRefused
	}
	return nil
}

func (n *naive) CloseIdleConnections() { http.DefaultClient.CloseIdleConnections() }

type restyCaller struct{ c *resty.Client }

func (r *restyCaller) Call(ctx context.Context, op Op) error {
	ans := newAnswer(op)
	res, err := r.c.R().SetContext(ctx).SetFormData(restyForm(op)).SetResult(ans).Post(paths[op])
	if err != nil {
		return err
	}
	if res.StatusCode() != http.StatusOK {
		return fmt.Errorf("HTTP %d", res.StatusCode())
	}
	if !ans.ok() {
		return errRefused
	}
	return nil
}

func (r *restyCaller) CloseIdleConnections() { r.c.GetClient().CloseIdleConnections() }
