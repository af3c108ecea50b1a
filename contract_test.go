package upicollect_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
	"github.com/upicollect/upicollect-go/upilink"
)

// The public surface of shared/API.md, spelled out with its exact
// signatures: a change that breaks the contract fails to compile here.
var (
	_ func() (upicollect.Credentials, error)                                         = upicollect.CredentialsFromEnv
	_ func(string) upicollect.Option                                                 = upicollect.WithBaseURL
	_ func(*http.Client) upicollect.Option                                           = upicollect.WithHTTPClient
	_ func(time.Duration) upicollect.Option                                          = upicollect.WithTimeout
	_ func(upicollect.RetryPolicy) upicollect.Option                                 = upicollect.WithRetryPolicy
	_ func(*slog.Logger) upicollect.Option                                           = upicollect.WithLogger
	_ func(string) upicollect.Option                                                 = upicollect.WithUserAgent
	_ func(float64, int) upicollect.Option                                           = upicollect.WithRateLimit
	_ func(int) upicollect.Option                                                    = upicollect.WithMaxConns
	_ func(upicollect.RateLimiter) upicollect.Option                                 = upicollect.WithRateLimiter
	_ func(upicollect.Observer) upicollect.Option                                    = upicollect.WithObserver
	_ interface{ Wait(context.Context) error }                                       = upicollect.RateLimiter(nil)
	_ func(*upicollect.Client)                                                       = (*upicollect.Client).CloseIdleConnections
	_ func(*upicollect.Intent, *upicollect.IntentParams) error                       = (*upicollect.Intent).Verify
	_ func(string) (*upilink.Link, error)                                            = upilink.Parse
	_ func(*upilink.Link) string                                                     = (*upilink.Link).String
	_ func(string, int) ([]byte, error)                                              = upilink.PNG
	_ func(string) string                                                            = upilink.Terminal
	_ func(upicollect.Credentials, ...upicollect.Option) (*upicollect.Client, error) = upicollect.NewClient

	_ func(*upicollect.Client, context.Context, *upicollect.IntentParams) (*upicollect.Intent, error)                = (*upicollect.Client).CreatePaymentIntent
	_ func(*upicollect.Client, context.Context, *upicollect.RequestParams) (*upicollect.PaymentRequest, error)       = (*upicollect.Client).CreatePaymentRequest
	_ func(*upicollect.Client, context.Context, *upicollect.LinkParams) (*upicollect.PaymentLink, error)             = (*upicollect.Client).CreatePaymentLink
	_ func(*upicollect.Client, context.Context, string) (*upicollect.PaymentStatus, error)                           = (*upicollect.Client).CheckPaymentStatus
	_ func(*upicollect.Client, context.Context, string, ...upicollect.WaitOption) (*upicollect.PaymentStatus, error) = (*upicollect.Client).WaitForPayment
	_ func(*upicollect.Client, context.Context, string, url.Values, any) (*upicollect.Response, error)               = (*upicollect.Client).Do

	_ func(time.Duration, time.Duration) upicollect.WaitOption    = upicollect.WithPollInterval
	_ func(time.Duration) upicollect.WaitOption                   = upicollect.WithMaxWait
	_ func(func(*upicollect.PaymentStatus)) upicollect.WaitOption = upicollect.WithOnPoll
	_ func(upicollect.Money) upicollect.WaitOption                = upicollect.WithExpectedAmount

	_ func(int64) upicollect.Money         = upicollect.Rupees
	_ func(upicollect.Money) int64         = upicollect.Money.Paise
	_ func(upicollect.Money) string        = upicollect.Money.String
	_ func(upicollect.TxnStatus) bool      = upicollect.TxnStatus.Terminal
	_ func() string                        = upicollect.NewOrderID
	_ func(*upicollect.PaymentStatus) bool = (*upicollect.PaymentStatus).Paid

	_ func(...sandbox.Option) *sandbox.Server = sandbox.New
	// Start is called with a testing.TB as API.md shows; its parameter is
	// sandbox.TB, the methods it uses, so the sandbox links no testing.
	_                                                                      = func(t testing.TB, opts ...sandbox.Option) *sandbox.Server { return sandbox.Start(t, opts...) }
	_ func(*sandbox.Server) string                                         = (*sandbox.Server).URL
	_ func(*sandbox.Server) upicollect.Credentials                         = (*sandbox.Server).Credentials
	_ func(*sandbox.Server, ...upicollect.Option) *upicollect.Client       = (*sandbox.Server).Client
	_ func(*sandbox.Server, string) (string, error)                        = (*sandbox.Server).Pay
	_ func(*sandbox.Server, string, upicollect.TxnStatus, time.Time) error = (*sandbox.Server).Settle
	_ func(*sandbox.Server)                                                = (*sandbox.Server).Close
)

// TestContractTypes builds every struct of API.md with all its named
// fields, and checks the constants' values.
func TestContractTypes(t *testing.T) {
	_ = upicollect.Credentials{MID: "", PublicKey: "", SecretKey: ""}
	_ = upicollect.RetryPolicy{MaxAttempts: 3, BaseDelay: 0, MaxDelay: 0, MaxRetryAfter: 0}
	cu := upicollect.Customer{Name: "", Email: "", Mobile: ""}
	_ = upicollect.IntentParams{Amount: 0, OrderID: "", RedirectURL: "", Note: "", Customer: cu}
	_ = upicollect.RequestParams{Amount: 0, OrderID: "", VPA: "", Note: "", Customer: cu}
	_ = upicollect.LinkParams{Amount: 0, Note: "", Customer: cu}
	r := &upicollect.Response{HTTPStatus: 0, Header: http.Header{}, Body: nil, Attempts: 0, Duration: 0}
	_ = upicollect.Intent{OrderID: "", Amount: 0, Link: "", AppLinks: map[string]string{}, DynamicQR: "",
		ExpiresAt: time.Time{}, Message: "", Response: r}
	_ = upicollect.PaymentRequest{OrderID: "", PaymentURL: "", Message: "", Response: r}
	_ = upicollect.PaymentLink{URL: "", Message: "", Response: r}
	_ = upicollect.PaymentStatus{OrderID: "", TxnStatus: upicollect.TxnPending, Amount: 0, UTR: "", Message: "", Response: r}
	_ = upicollect.APIError{Op: "", HTTPStatus: 0, StatusCode: 0, Message: "", Response: r}
	_ = upicollect.ValidationError{Op: "", Fields: []upicollect.FieldError{{Field: "", Problem: ""}}}

	assert.Equal(t, upicollect.TxnStatus("SUCCESS"), upicollect.TxnSuccess)
	assert.Equal(t, upicollect.TxnStatus("PENDING"), upicollect.TxnPending)
	assert.Equal(t, upicollect.TxnStatus("FAIL"), upicollect.TxnFail)
	assert.Equal(t, upicollect.TxnStatus("REJECT"), upicollect.TxnReject)
	for _, err := range []error{
		upicollect.ErrValidation, upicollect.ErrUnauthorized, upicollect.ErrDuplicateOrderID,
		upicollect.ErrInvalidRequest, upicollect.ErrNotFound, upicollect.ErrRateLimited,
		upicollect.ErrServer, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown,
		upicollect.ErrAmountMismatch,
	} {
		assert.Error(t, err)
	}
}

// The hosted checkout and unknown orders (issue 20), as API.md spells them.
var (
	_ func(*upicollect.Client, context.Context, *upicollect.OrderRequestParams) (*upicollect.OrderRequest, error) = (*upicollect.Client).CreateOrderRequest
	_ func(time.Duration) upicollect.WaitOption                                                                   = upicollect.WithUnknownOrderTimeout

	_ = upicollect.OrderRequestParams{Amount: 0, OrderID: "", RedirectURL: "", Note: "", Customer: upicollect.Customer{}}
	_ = upicollect.OrderRequest{OrderID: "", PaymentURL: "", Message: "", Response: (*upicollect.Response)(nil)}
	_ = upicollect.PaymentStatus{NotFound: true}
	_ = upicollect.Version
)
