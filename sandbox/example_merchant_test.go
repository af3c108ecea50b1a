package sandbox_test

// Testing a merchant's own code, the Go way: the code depends on a narrow
// interface holding only the SDK methods it calls, which *upicollect.Client
// satisfies. Unit tests give it a stub of that interface (fast, any answer
// on demand, including ones the service rarely sends); integration tests
// give it the real client, wired to the sandbox over loopback, so the real
// encoding, decoding, retries and the service's behaviour are exercised.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// Payments is what the shop's code needs from the SDK, and no more: define
// it in your own package, beside the code that uses it.
type Payments interface {
	CreateOrderRequest(ctx context.Context, p *upicollect.OrderRequestParams) (*upicollect.OrderRequest, error)
	CheckPaymentStatus(ctx context.Context, orderID string) (*upicollect.PaymentStatus, error)
}

// The real client is a Payments.
var _ Payments = (*upicollect.Client)(nil)

// Shop is a small merchant checkout: POST /checkout sends the payer to the
// hosted checkout, GET /return?order=ID confirms and credits the order once.
type Shop struct {
	Payments Payments
	BaseURL  string // where payers reach the shop

	mu       sync.Mutex
	amounts  map[string]upicollect.Money // the shop's orders and what they cost
	credited map[string]bool
}

// NewShop returns a shop that takes payments through p.
func NewShop(p Payments, baseURL string) *Shop {
	return &Shop{Payments: p, BaseURL: baseURL, amounts: map[string]upicollect.Money{}, credited: map[string]bool{}}
}

// Handler serves the shop's two pages.
func (s *Shop) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /checkout", s.checkout)
	mux.HandleFunc("GET /return", s.confirm)
	return mux
}

func (s *Shop) checkout(w http.ResponseWriter, r *http.Request) {
	orderID, amount := upicollect.NewOrderID(), upicollect.Rupees(499)
	s.mu.Lock()
	s.amounts[orderID] = amount // stored before the call: it can be checked whatever happens
	s.mu.Unlock()
	or, err := s.Payments.CreateOrderRequest(r.Context(), &upicollect.OrderRequestParams{
		Amount: amount, OrderID: orderID, RedirectURL: s.BaseURL + "/return?order=" + orderID,
		Note: "Masala chai kit", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	if err != nil {
		http.Error(w, "payment service unavailable, please try again", http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, or.PaymentURL, http.StatusSeeOther)
}

func (s *Shop) confirm(w http.ResponseWriter, r *http.Request) {
	orderID := r.URL.Query().Get("order")
	s.mu.Lock()
	amount, ok := s.amounts[orderID]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such order", http.StatusNotFound)
		return
	}
	st, err := s.Payments.CheckPaymentStatus(r.Context(), orderID)
	switch {
	case err != nil:
		http.Error(w, "could not confirm yet, refresh in a moment", http.StatusBadGateway)
	case st.NotFound:
		fmt.Fprintln(w, "no payment has reached us yet")
	case st.Paid() && st.Amount != amount:
		http.Error(w, "the amount paid does not match the order", http.StatusConflict)
	case st.Paid():
		fmt.Fprintln(w, "paid, thank you", s.credit(orderID))
	case st.TxnStatus.Terminal():
		fmt.Fprintln(w, "payment not completed:", st.TxnStatus)
	default:
		fmt.Fprintln(w, "your bank is processing the payment")
	}
}

// credit marks the order paid and reports whether this call did it.
func (s *Shop) credit(orderID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.credited[orderID] {
		return "(already credited)"
	}
	s.credited[orderID] = true
	return "(credited)"
}

// stubPayments is a Payments for unit tests: every order request succeeds,
// and the status check answers what the test put in statuses (or err).
type stubPayments struct {
	mu       sync.Mutex
	statuses map[string]*upicollect.PaymentStatus
	err      error
}

func (p *stubPayments) CreateOrderRequest(_ context.Context, in *upicollect.OrderRequestParams) (*upicollect.OrderRequest, error) {
	return &upicollect.OrderRequest{OrderID: in.OrderID, PaymentURL: "https://pay.example/checkout/" + in.OrderID}, nil
}

func (p *stubPayments) CheckPaymentStatus(_ context.Context, orderID string) (*upicollect.PaymentStatus, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	if st, ok := p.statuses[orderID]; ok {
		return st, nil
	}
	return &upicollect.PaymentStatus{OrderID: orderID, TxnStatus: upicollect.TxnPending, NotFound: true}, nil
}

func (p *stubPayments) set(st *upicollect.PaymentStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.statuses[st.OrderID] = st
}

// shopServer serves the shop over loopback and returns a browser for it
// that stops at redirects.
func shopServer(t testing.TB, p Payments) (*Shop, *httptest.Server, *http.Client) {
	t.Helper()
	var shop *Shop
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { shop.Handler().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	shop = NewShop(p, srv.URL)
	browser := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(browser.CloseIdleConnections)
	return shop, srv, browser
}

// startCheckout posts the checkout and returns the order id and where the
// payer was sent.
func startCheckout(t testing.TB, srv *httptest.Server, browser *http.Client) (orderID, paymentURL string) {
	t.Helper()
	res, err := browser.PostForm(srv.URL+"/checkout", nil)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	paymentURL = res.Header.Get("Location")
	orderID = paymentURL[strings.LastIndex(paymentURL, "/")+1:]
	return orderID, paymentURL
}

func returnPage(t testing.TB, srv *httptest.Server, browser *http.Client, orderID string) (int, string) {
	t.Helper()
	res, err := browser.Get(srv.URL + "/return?order=" + url.QueryEscape(orderID))
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, strings.TrimSpace(string(b))
}

// TestShopWithStub: the shop's decisions, one answer of the status check at
// a time, through a stub of the narrow interface.
func TestShopWithStub(t *testing.T) {
	t.Parallel()
	paid := func(id string, m upicollect.Money) *upicollect.PaymentStatus {
		return &upicollect.PaymentStatus{OrderID: id, TxnStatus: upicollect.TxnSuccess, Amount: m, UTR: "123456789012"}
	}
	for _, tt := range []struct {
		name   string
		answer func(id string) *upicollect.PaymentStatus // nil: the stub's default, not found
		err    error
		code   int
		body   string
	}{
		{name: "not found", code: 200, body: "no payment has reached us yet"},
		{name: "pending", answer: func(id string) *upicollect.PaymentStatus {
			return &upicollect.PaymentStatus{OrderID: id, TxnStatus: upicollect.TxnPending}
		}, code: 200, body: "your bank is processing the payment"},
		{name: "paid", answer: func(id string) *upicollect.PaymentStatus { return paid(id, upicollect.Rupees(499)) },
			code: 200, body: "paid, thank you (credited)"},
		{name: "paid another amount", answer: func(id string) *upicollect.PaymentStatus { return paid(id, upicollect.Rupees(1)) },
			code: 409, body: "the amount paid does not match the order"},
		{name: "failed", answer: func(id string) *upicollect.PaymentStatus {
			return &upicollect.PaymentStatus{OrderID: id, TxnStatus: upicollect.TxnFail}
		}, code: 200, body: "payment not completed: FAIL"},
		{name: "service down", err: upicollect.ErrServer, code: 502, body: "could not confirm yet, refresh in a moment"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stub := &stubPayments{statuses: map[string]*upicollect.PaymentStatus{}}
			_, srv, browser := shopServer(t, stub)
			orderID, paymentURL := startCheckout(t, srv, browser)
			assert.Equal(t, "https://pay.example/checkout/"+orderID, paymentURL)
			if tt.answer != nil {
				stub.set(tt.answer(orderID))
			}
			stub.err = tt.err
			code, body := returnPage(t, srv, browser, orderID)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.body, body)
		})
	}
}

// TestShopWithSandbox: the same shop with the real client against the
// sandbox: the real request, the hosted checkout page, the payer's choice,
// the service's own answers; the order is credited once however often the
// payer comes back.
func TestShopWithSandbox(t *testing.T) {
	t.Parallel()
	sb := sandbox.Start(t)
	shop, srv, browser := shopServer(t, sb.Client())
	orderID, paymentURL := startCheckout(t, srv, browser)
	assert.Equal(t, sb.URL()+"/sandbox/pay/"+orderID, paymentURL)

	code, body := returnPage(t, srv, browser, orderID)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "no payment has reached us yet", body)

	// The payer pays on the hosted page and is sent back to the shop.
	res, err := browser.PostForm(sb.URL()+"/sandbox/orders/"+url.PathEscape(orderID)+"/pay",
		url.Values{"result": {"SUCCESS"}, "return": {"page"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, srv.URL+"/return?order="+orderID, res.Header.Get("Location"))

	for _, want := range []string{"paid, thank you (credited)", "paid, thank you (already credited)"} {
		code, body = returnPage(t, srv, browser, orderID)
		assert.Equal(t, http.StatusOK, code)
		assert.Equal(t, want, body)
	}
	assert.Len(t, shop.credited, 1)

	// A service that fails: the sandbox scripts it, the shop says so.
	sb.InjectFault(sandbox.Fault{Op: sandbox.OpCreateOrderRequest, Status: 500, Times: 3})
	res, err = browser.PostForm(srv.URL+"/checkout", nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadGateway, res.StatusCode)
}

// Example_testingYourCode runs the shop both ways: with a stub of the
// narrow interface it depends on, and with the real client against the
// sandbox. Tests do the same with t (TestShopWithStub, TestShopWithSandbox
// in this file).
func Example_testingYourCode() {
	ctx := context.Background()
	confirm := func(p Payments, orderID string) string {
		shop := NewShop(p, "https://shop.example")
		shop.amounts[orderID] = upicollect.Rupees(499)
		rec := httptest.NewRecorder()
		shop.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/return?order="+orderID, nil))
		return strings.TrimSpace(rec.Body.String())
	}

	// 1. A stub: any answer, on demand.
	stub := &stubPayments{statuses: map[string]*upicollect.PaymentStatus{
		"ord-1": {OrderID: "ord-1", TxnStatus: upicollect.TxnSuccess, Amount: upicollect.Rupees(1)},
	}}
	fmt.Println("stub:", confirm(stub, "ord-1"))
	stub.err = errors.New("connection refused")
	fmt.Println("stub:", confirm(stub, "ord-1"))

	// 2. The real client against the sandbox.
	sb := sandbox.New()
	defer sb.Close()
	client := sb.Client()
	_, err := client.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
		Amount: upicollect.Rupees(499), OrderID: "ord-2", RedirectURL: "https://shop.example/return?order=ord-2",
		Note: "Masala chai kit", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sandbox:", confirm(client, "ord-2"))
	if _, err := sb.Pay("ord-2"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sandbox:", confirm(client, "ord-2"))
	// Output:
	// stub: the amount paid does not match the order
	// stub: could not confirm yet, refresh in a moment
	// sandbox: no payment has reached us yet
	// sandbox: paid, thank you (credited)
}
