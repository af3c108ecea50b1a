package upicollect_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/clock"
	"github.com/upicollect/upicollect-go/sandbox"
)

// The fault matrix: every fault the sandbox can script (and a dead port),
// against every operation, with what the caller must see. It is the source
// of the table "Every fault, and what the caller sees" in
// docs/reliability.md, printed by TestFaultMatrix -v.

// fmOp is a column of the matrix: an operation, called as a merchant would.
type fmOp string

const (
	fmIntent     fmOp = "createPaymentIntent"
	fmRequest    fmOp = "createPaymentRequest"
	fmLink       fmOp = "createPaymentLink"
	fmStatus     fmOp = "checkPaymentStatus"
	fmIntentNoID fmOp = "createPaymentIntent without OrderID"
)

var fmOps = []fmOp{fmIntent, fmRequest, fmLink, fmStatus, fmIntentNoID}

// wire is the operation the sandbox sees.
func (o fmOp) wire() string {
	if o == fmIntentNoID {
		return sandbox.OpCreatePaymentIntent
	}
	return string(o)
}

func (o fmOp) creates() bool { return o != fmStatus }

// fmFault is a row of the matrix.
type fmFault struct {
	name string
	// timeout is the per-attempt timeout (WithTimeout); 0 keeps the default.
	timeout time.Duration
	// refused points the client at a port nobody listens on.
	refused bool
	// callerDeadline, when set, is the deadline of the caller's context.
	callerDeadline time.Duration
	// fault is injected into the sandbox for the cell's operation; other is
	// the base URL of a second server that must never be contacted.
	fault func(op, other string) sandbox.Fault
}

// fmTimeout is the per-attempt timeout of the rows that need one to fire;
// long enough that a normal answer under -race on a busy machine is never
// cut, short enough to keep the matrix quick.
const fmTimeout = 500 * time.Millisecond

const (
	fmHTML      = "<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>"
	fmTruncated = `{"status":true,"statusCode":200,"msg":"Success","data":{"orderId":"ORD2025`
	fmRateBody  = `{"status":false,"statusCode":429,"msg":"Too many requests"}`
)

var (
	fmHTMLHeader = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	fmEvery      = -1 // Fault.Times: until cleared
)

func fmRetryAfter(secs string) http.Header {
	return http.Header{"Retry-After": {secs}, "Content-Type": {"application/json"}}
}

var (
	fRefused = fmFault{name: "connection refused (every attempt)", refused: true}
	fResetB  = fmFault{name: "connection reset before processing (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, ResetBeforeProcessing: true}
	}}
	fResetA = fmFault{name: "connection reset after processing (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, ResetAfterProcessing: true}
	}}
	fTimeout = fmFault{name: "no answer within WithTimeout (once)", timeout: fmTimeout, fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Latency: 1 * time.Minute}
	}}
	fTimeoutAll = fmFault{name: "no answer within WithTimeout (every attempt)", timeout: fmTimeout, fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Latency: 1 * time.Minute, Times: fmEvery}
	}}
	fCallerCtx = fmFault{name: "caller's context deadline passes mid-request", callerDeadline: fmTimeout, fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Latency: 1 * time.Minute}
	}}
	f429 = fmFault{name: "429 with Retry-After: 2 (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 429, Body: []byte(fmRateBody), Header: fmRetryAfter("2")}
	}}
	f429All = fmFault{name: "429 with Retry-After: 2 (every attempt)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 429, Body: []byte(fmRateBody), Header: fmRetryAfter("2"), Times: fmEvery}
	}}
	f429Long = fmFault{name: "429 with Retry-After: 120, over MaxRetryAfter (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 429, Body: []byte(fmRateBody), Header: fmRetryAfter("120")}
	}}
	f500 = fmFault{name: "500 with an HTML page (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 500, Body: []byte(fmHTML), Header: fmHTMLHeader}
	}}
	f500Done = fmFault{name: "500 with an HTML page, after processing (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 500, Body: []byte(fmHTML), Header: fmHTMLHeader, Processed: true}
	}}
	f500All = fmFault{name: "500 with an HTML page (every attempt)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 500, Body: []byte(fmHTML), Header: fmHTMLHeader, Times: fmEvery}
	}}
	f502 = fmFault{name: "502 with an empty body (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 502}
	}}
	fTrunc = fmFault{name: "200 with truncated JSON, after processing (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 200, Body: []byte(fmTruncated), Processed: true,
			Header: http.Header{"Content-Type": {"application/json"}}}
	}}
	fNoData = fmFault{name: "200 `status:true` without `data`, after processing (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: 200, Body: []byte(`{"status":true,"statusCode":200,"msg":"Success"}`),
			Processed: true, Header: http.Header{"Content-Type": {"application/json"}}}
	}}
	fSlow = fmFault{name: "body dripped over 1 min, after processing (once)", timeout: fmTimeout, fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, SlowBody: time.Minute}
	}}
	fSlowAll = fmFault{name: "body dripped over 1 min (every attempt)", timeout: fmTimeout, fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, SlowBody: time.Minute, Times: fmEvery}
	}}
	fHuge = fmFault{name: "200 with a 100 MB body (once)", fault: func(op, _ string) sandbox.Fault {
		return sandbox.Fault{Op: op, HugeBody: 100 << 20}
	}}
	// fRedirect is a fault of the soak; the redirect cases live in one
	// table-driven test of their own.
	fRedirect = fmFault{name: "302 to another host (once)", fault: func(op, other string) sandbox.Fault {
		return sandbox.Fault{Op: op, Status: http.StatusFound,
			Header: http.Header{"Location": {other + "/v1/payments/" + op}}}
	}}
)

// fmWant is what the caller of one cell sees.
type fmWant struct {
	ok       bool    // the call succeeds
	is       []error // the error matches exactly these of fmMatchers
	attempts int     // requests sent (Response.Attempts, debug records)
	orders   int     // orders the call left in the sandbox
	// retryAfter: the retry waited the answer's Retry-After (2s), not a
	// backoff.
	retryAfter bool
}

func fmOK(attempts, orders int) fmWant { return fmWant{ok: true, attempts: attempts, orders: orders} }

func fmFails(attempts, orders int, is ...error) fmWant {
	return fmWant{attempts: attempts, orders: orders, is: is}
}

// Short names for the table, beside the sentinels' in decode_test.go.
var (
	eDeadline = context.DeadlineExceeded
	eRefused  = syscall.ECONNREFUSED
)

// fmMatchers are every error a cell's error is checked against: each must
// match if and only if the cell lists it. They are the package's sentinels
// (helper_test.go) and the context and network errors a fault can surface.
var fmMatchers = append(append(sentinels[:0:0], sentinels...), []struct {
	name string
	err  error
}{
	{"context.DeadlineExceeded", context.DeadlineExceeded},
	{"context.Canceled", context.Canceled},
	{"syscall.ECONNREFUSED", syscall.ECONNREFUSED},
}...)

// fmCell is one cell: a fault, an operation, and what the caller sees.
type fmCell struct {
	fault fmFault
	op    fmOp
	want  fmWant
}

// faultMatrix is the expected behaviour, from the retry rules of doc.go and
// the operations' doc comments:
//   - the status check is read-only and retried on any transient failure;
//   - a create with an OrderID is retried after ambiguous failures too
//     (timeout, reset, 5xx), and a 409 on such a retry is ErrOutcomeUnknown;
//   - an intent without OrderID gets one from NewOrderID before the first
//     attempt, so it behaves as one with an OrderID, and its errors and
//     result name the client's id;
//   - a create without an order id (a link) is retried only when the
//     request never left; otherwise, a 429 included, it is
//     ErrOutcomeUnknown;
//   - an unreadable 200 (truncated, too large) is never retried;
//   - no retry ever makes a second order.
var faultMatrix = []fmCell{
	{fRefused, fmIntent, fmFails(3, 0, eRefused)},
	{fRefused, fmRequest, fmFails(3, 0, eRefused)},
	{fRefused, fmLink, fmFails(3, 0, eRefused)},
	{fRefused, fmStatus, fmFails(3, 0, eRefused)},
	{fRefused, fmIntentNoID, fmFails(3, 0, eRefused)},

	{fResetB, fmIntent, fmOK(2, 1)},
	{fResetB, fmRequest, fmOK(2, 1)},
	{fResetB, fmLink, fmFails(1, 0, errUnknown)},
	{fResetB, fmStatus, fmOK(2, 0)},
	{fResetB, fmIntentNoID, fmOK(2, 1)},

	{fResetA, fmIntent, fmFails(2, 1, errUnknown)},
	{fResetA, fmRequest, fmFails(2, 1, errUnknown)},
	{fResetA, fmLink, fmFails(1, 1, errUnknown)},
	{fResetA, fmStatus, fmOK(2, 0)},
	{fResetA, fmIntentNoID, fmFails(2, 1, errUnknown)},

	{fTimeout, fmIntent, fmOK(2, 1)},
	{fTimeout, fmRequest, fmOK(2, 1)},
	{fTimeout, fmLink, fmFails(1, 0, errUnknown, eDeadline)},
	{fTimeout, fmStatus, fmOK(2, 0)},
	{fTimeout, fmIntentNoID, fmOK(2, 1)},

	{fTimeoutAll, fmIntent, fmFails(3, 0, errUnknown, eDeadline)},
	{fTimeoutAll, fmRequest, fmFails(3, 0, errUnknown, eDeadline)},
	{fTimeoutAll, fmLink, fmFails(1, 0, errUnknown, eDeadline)},
	{fTimeoutAll, fmStatus, fmFails(3, 0, eDeadline)},
	{fTimeoutAll, fmIntentNoID, fmFails(3, 0, errUnknown, eDeadline)},

	{fCallerCtx, fmIntent, fmFails(1, 0, errUnknown, eDeadline)},
	{fCallerCtx, fmRequest, fmFails(1, 0, errUnknown, eDeadline)},
	{fCallerCtx, fmLink, fmFails(1, 0, errUnknown, eDeadline)},
	{fCallerCtx, fmStatus, fmFails(1, 0, eDeadline)},
	{fCallerCtx, fmIntentNoID, fmFails(1, 0, errUnknown, eDeadline)},

	{f429, fmIntent, fmWant{ok: true, attempts: 2, orders: 1, retryAfter: true}},
	{f429, fmRequest, fmWant{ok: true, attempts: 2, orders: 1, retryAfter: true}},
	{f429, fmLink, fmFails(1, 0, errRateLimited, errUnknown)},
	{f429, fmStatus, fmWant{ok: true, attempts: 2, orders: 0, retryAfter: true}},
	{f429, fmIntentNoID, fmWant{ok: true, attempts: 2, orders: 1, retryAfter: true}},

	{f429All, fmIntent, fmWant{attempts: 3, is: []error{errRateLimited, errUnknown}, retryAfter: true}},
	{f429All, fmRequest, fmWant{attempts: 3, is: []error{errRateLimited, errUnknown}, retryAfter: true}},
	{f429All, fmLink, fmFails(1, 0, errRateLimited, errUnknown)},
	{f429All, fmStatus, fmWant{attempts: 3, is: []error{errRateLimited}, retryAfter: true}},
	{f429All, fmIntentNoID, fmWant{attempts: 3, is: []error{errRateLimited, errUnknown}, retryAfter: true}},

	{f429Long, fmIntent, fmFails(1, 0, errRateLimited, errUnknown)},
	{f429Long, fmRequest, fmFails(1, 0, errRateLimited, errUnknown)},
	{f429Long, fmLink, fmFails(1, 0, errRateLimited, errUnknown)},
	{f429Long, fmStatus, fmFails(1, 0, errRateLimited)},
	{f429Long, fmIntentNoID, fmFails(1, 0, errRateLimited, errUnknown)},

	{f500, fmIntent, fmOK(2, 1)},
	{f500, fmRequest, fmOK(2, 1)},
	{f500, fmLink, fmFails(1, 0, errUnknown, errServer, errUnexpected)},
	{f500, fmStatus, fmOK(2, 0)},
	{f500, fmIntentNoID, fmOK(2, 1)},

	{f500Done, fmIntent, fmFails(2, 1, errUnknown)},
	{f500Done, fmRequest, fmFails(2, 1, errUnknown)},
	{f500Done, fmLink, fmFails(1, 1, errUnknown, errServer, errUnexpected)},
	{f500Done, fmStatus, fmOK(2, 0)},
	{f500Done, fmIntentNoID, fmFails(2, 1, errUnknown)},

	{f500All, fmIntent, fmFails(3, 0, errUnknown, errServer, errUnexpected)},
	{f500All, fmRequest, fmFails(3, 0, errUnknown, errServer, errUnexpected)},
	{f500All, fmLink, fmFails(1, 0, errUnknown, errServer, errUnexpected)},
	{f500All, fmStatus, fmFails(3, 0, errServer, errUnexpected)},
	{f500All, fmIntentNoID, fmFails(3, 0, errUnknown, errServer, errUnexpected)},

	{f502, fmIntent, fmOK(2, 1)},
	{f502, fmRequest, fmOK(2, 1)},
	{f502, fmLink, fmFails(1, 0, errUnknown, errServer, errUnexpected)},
	{f502, fmStatus, fmOK(2, 0)},
	{f502, fmIntentNoID, fmOK(2, 1)},

	{fTrunc, fmIntent, fmFails(1, 1, errUnknown, errUnexpected)},
	{fTrunc, fmRequest, fmFails(1, 1, errUnknown, errUnexpected)},
	{fTrunc, fmLink, fmFails(1, 1, errUnknown, errUnexpected)},
	{fTrunc, fmStatus, fmFails(1, 0, errUnexpected)},
	{fTrunc, fmIntentNoID, fmFails(1, 1, errUnknown, errUnexpected)},

	{fNoData, fmIntent, fmFails(1, 1, errUnknown, errUnexpected)},
	{fNoData, fmRequest, fmFails(1, 1, errUnknown, errUnexpected)},
	{fNoData, fmLink, fmFails(1, 1, errUnknown, errUnexpected)},
	{fNoData, fmStatus, fmFails(1, 0, errUnexpected)},
	{fNoData, fmIntentNoID, fmFails(1, 1, errUnknown, errUnexpected)},

	{fSlow, fmIntent, fmFails(2, 1, errUnknown)},
	{fSlow, fmRequest, fmFails(2, 1, errUnknown)},
	{fSlow, fmLink, fmFails(1, 1, errUnknown, eDeadline)},
	{fSlow, fmStatus, fmOK(2, 0)},
	{fSlow, fmIntentNoID, fmFails(2, 1, errUnknown)},

	{fSlowAll, fmIntent, fmFails(3, 1, errUnknown, eDeadline)},
	{fSlowAll, fmRequest, fmFails(3, 1, errUnknown, eDeadline)},
	{fSlowAll, fmLink, fmFails(1, 1, errUnknown, eDeadline)},
	{fSlowAll, fmStatus, fmFails(3, 0, eDeadline)},
	{fSlowAll, fmIntentNoID, fmFails(3, 1, errUnknown, eDeadline)},

	{fHuge, fmIntent, fmFails(1, 0, errUnknown, errUnexpected)},
	{fHuge, fmRequest, fmFails(1, 0, errUnknown, errUnexpected)},
	{fHuge, fmLink, fmFails(1, 0, errUnknown, errUnexpected)},
	{fHuge, fmStatus, fmFails(1, 0, errUnexpected)},
	{fHuge, fmIntentNoID, fmFails(1, 0, errUnknown, errUnexpected)},
}

// The customer of every create; their e-mail and mobile must not reach the
// logs unmasked.
var fmCustomer = upicollect.Customer{Name: "Asha Rao", Email: "asha.rao@example.com", Mobile: "9876543210"}

const fmVPA = "asha.rao@okaxis"

func fmParams(op fmOp, orderID string) any {
	switch op {
	case fmIntent, fmIntentNoID:
		return &upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: orderID,
			RedirectURL: "https://shop.example.com/return", Note: "Order 42", Customer: fmCustomer}
	case fmRequest:
		return &upicollect.RequestParams{Amount: upicollect.Rupees(499), OrderID: orderID, VPA: fmVPA,
			Note: "Order 42", Customer: fmCustomer}
	case fmLink:
		return &upicollect.LinkParams{Amount: upicollect.Rupees(499), Note: "Order 42", Customer: fmCustomer}
	}
	return nil
}

// fmCall makes the cell's call and returns the result, its *Response (the
// result's or the error's, when there is one) and the error.
func fmCall(ctx context.Context, c *upicollect.Client, op fmOp, orderID string, params any) (any, *upicollect.Response, error) {
	var (
		res  any
		resp *upicollect.Response
		err  error
	)
	switch op {
	case fmIntent, fmIntentNoID:
		var r *upicollect.Intent
		if r, err = c.CreatePaymentIntent(ctx, params.(*upicollect.IntentParams)); r != nil {
			res, resp = r, r.Response
		}
	case fmRequest:
		var r *upicollect.PaymentRequest
		if r, err = c.CreatePaymentRequest(ctx, params.(*upicollect.RequestParams)); r != nil {
			res, resp = r, r.Response
		}
	case fmLink:
		var r *upicollect.PaymentLink
		if r, err = c.CreatePaymentLink(ctx, params.(*upicollect.LinkParams)); r != nil {
			res, resp = r, r.Response
		}
	case fmStatus:
		var r *upicollect.PaymentStatus
		if r, err = c.CheckPaymentStatus(ctx, orderID); r != nil {
			res, resp = r, r.Response
		}
	}
	var ae *upicollect.APIError
	if errors.As(err, &ae) {
		resp = ae.Response
	}
	return res, resp, err
}

// fmLogBuffer collects the JSON log lines of one client.
type fmLogBuffer struct{ syncBuffer }

// records parses the log lines.
func (b *fmLogBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), "log line %q", sc.Text())
		out = append(out, rec)
	}
	require.NoError(t, sc.Err())
	return out
}

// fmCount counts the records with level and msg.
func fmCount(recs []map[string]any, level slog.Level, msg string) int {
	n := 0
	for _, r := range recs {
		if r["level"] == level.String() && r["msg"] == msg {
			n++
		}
	}
	return n
}

// fmCounter is a server that must receive nothing: the redirect target.
func fmCounter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestFaultMatrix(t *testing.T) {
	verifyNoLeaks(t) // first: its cleanup runs after every server closed
	covered := map[string]map[fmOp]bool{}
	for _, cell := range faultMatrix {
		if covered[cell.fault.name] == nil {
			covered[cell.fault.name] = map[fmOp]bool{}
		}
		require.False(t, covered[cell.fault.name][cell.op], "duplicate cell %s × %s", cell.fault.name, cell.op)
		covered[cell.fault.name][cell.op] = true
	}
	for name, ops := range covered {
		require.Len(t, ops, len(fmOps), "row %q must cover fmEvery operation", name)
	}

	for _, cell := range faultMatrix {
		t.Run(cell.fault.name+"/"+string(cell.op), func(t *testing.T) {
			t.Parallel()
			fmRunCell(t, cell)
		})
	}
	t.Run("table", func(t *testing.T) {
		t.Log("\n" + fmMarkdown())
	})
}

func fmRunCell(t *testing.T, cell fmCell) {
	s := sandbox.Start(t, sandbox.Strict())
	creds := s.Credentials()

	orderID := ""
	if cell.op != fmIntentNoID && cell.op != fmLink {
		orderID = upicollect.NewOrderID()
	}
	if cell.op == fmStatus {
		// A paid order to look up, made through a client of its own.
		setup := s.Client()
		_, err := setup.CreatePaymentIntent(context.Background(), fmParams(fmIntent, orderID).(*upicollect.IntentParams))
		require.NoError(t, err)
		_, err = s.Pay(orderID)
		require.NoError(t, err)
	}
	before := len(s.Orders())

	other, otherHits := fmCounter(t)
	base := s.URL()
	if cell.fault.refused {
		base = "http://" + closedAddr(t)
	} else {
		s.InjectFault(cell.fault.fault(cell.op.wire(), other.URL))
	}

	clock := clock.NewFake(time.Now())
	logs := &fmLogBuffer{}
	opts := []upicollect.Option{
		upicollect.WithBaseURL(base), // the SDK's own transport, as in production
		upicollect.WithClock(clock),
		upicollect.WithRand(func() float64 { return 0.5 }),
		upicollect.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	}
	if cell.fault.timeout > 0 {
		opts = append(opts, upicollect.WithTimeout(cell.fault.timeout))
	}
	c, err := upicollect.NewClient(creds, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { upicollect.CloseIdleConnections(c) })

	// A guard: no cell may need anywhere near this.
	deadline := 20 * time.Second
	if cell.fault.callerDeadline > 0 {
		deadline = cell.fault.callerDeadline
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	params := fmParams(cell.op, orderID)
	res, resp, err := fmCall(ctx, c, cell.op, orderID, params)
	if cell.fault.callerDeadline == 0 {
		require.NoError(t, ctx.Err(), "the call must end by itself, not by the guard's deadline")
	}
	w := cell.want
	if cell.op == fmIntentNoID {
		// The client gave the intent an id of its own: the result and
		// every error name it, and the checks below hold it to that.
		orderID = fmClientOrderID(t, res, err)
	}

	// What the caller sees.
	if w.ok {
		require.NoError(t, err)
		require.NotNil(t, res)
		fmCheckResult(t, cell.op, orderID, res)
	} else {
		require.Error(t, err)
		assert.Nil(t, res)
		for _, m := range fmMatchers {
			want := false
			for _, e := range w.is {
				want = want || e == m.err
			}
			assert.Equal(t, want, errors.Is(err, m.err), "errors.Is(err, %s) for %v", m.name, err)
		}
		var ae *upicollect.APIError
		if errors.Is(err, upicollect.ErrOutcomeUnknown) {
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, orderID, ae.OrderID, "ErrOutcomeUnknown names the order to check")
			assert.Equal(t, cell.op.wire(), ae.Op)
			if orderID != "" {
				assert.Contains(t, err.Error(), orderID)
			}
		}
	}
	if resp != nil {
		assert.Equal(t, w.attempts, resp.Attempts, "Response.Attempts")
		assert.LessOrEqual(t, len(resp.Body), 1<<20, "the body is capped at 1 MiB")
	}
	assert.Zero(t, otherHits.Load(), "a redirect target gets no request")

	// No retry made a second order, and a success made exactly one.
	assert.Equal(t, w.orders, len(s.Orders())-before, "orders the call made")
	if cell.op.creates() && orderID != "" && w.orders == 1 {
		o, found := s.Order(orderID)
		require.True(t, found, "the order is stored under the caller's id")
		assert.Equal(t, orderID, o.OrderID)
	}

	// Backoff and Retry-After went through the clock, in fake time.
	sleeps := clock.Sleeps()
	assert.Len(t, sleeps, w.attempts-1, "one wait before each retry")
	for _, d := range sleeps {
		if w.retryAfter {
			assert.Equal(t, 2*time.Second, d, "the retry waits Retry-After")
		} else {
			assert.Less(t, d, time.Second, "a backoff, not a Retry-After")
		}
	}

	// The logs: a debug record per attempt, a warning per retry, an error
	// when the call fails, and never a secret.
	recs := logs.records(t)
	assert.Equal(t, w.attempts, fmCount(recs, slog.LevelDebug, "upicollect: attempt"), "debug records (one per attempt)")
	assert.Equal(t, w.attempts-1, fmCount(recs, slog.LevelWarn, "upicollect: retrying"), "warnings (one per retry)")
	wantErrors := 0
	if !w.ok {
		wantErrors = 1
	}
	assert.Equal(t, wantErrors, fmCount(recs, slog.LevelError, "upicollect: call failed"), "error records (one per failed call)")
	assert.Len(t, recs, 2*w.attempts-1+wantErrors, "no other records")
	for _, r := range recs {
		assert.Equal(t, cell.op.wire(), r["op"], "fmEvery record names the operation")
	}

	printed := []string{
		logs.String(),
		fmt.Sprintf("%v|%+v|%#v|%s", c, c, c, c),
		fmt.Sprintf("%v|%+v|%#v|%s", creds, creds, creds, creds),
		fmt.Sprintf("%v|%+v|%#v", params, params, params),
		fmt.Sprintf("%v|%+v|%#v", res, res, res),
	}
	if err != nil {
		printed = append(printed, err.Error(), fmt.Sprintf("%v|%+v|%#v|%s|%q", err, err, err, err, err))
	}
	fmAssertNoSecrets(t, creds, strings.Join(printed, "\n"))
	assert.NotContains(t, logs.String(), fmCustomer.Email, "e-mail masked in logs")
	assert.NotContains(t, logs.String(), fmCustomer.Mobile, "mobile masked in logs")
}

// fmAssertNoSecrets checks that text holds neither the secret key nor the
// Authorization value, raw or encoded.
func fmAssertNoSecrets(t *testing.T, creds upicollect.Credentials, text string) {
	t.Helper()
	b64 := base64.StdEncoding.EncodeToString([]byte(creds.PublicKey + ":" + creds.SecretKey))
	require.NotEmpty(t, creds.SecretKey)
	for name, s := range map[string]string{
		"secret key":           creds.SecretKey,
		"Authorization base64": b64,
		"url-safe base64":      base64.URLEncoding.EncodeToString([]byte(creds.PublicKey + ":" + creds.SecretKey)),
	} {
		assert.NotContains(t, text, s, "%s leaked", name)
	}
}

// fmClientOrderID is the order id the client set for an intent created
// without one, as its result or its error names it.
func fmClientOrderID(t *testing.T, res any, err error) string {
	t.Helper()
	var id string
	var ae *upicollect.APIError
	switch {
	case res != nil:
		id = res.(*upicollect.Intent).OrderID
	case errors.As(err, &ae):
		id = ae.OrderID
	}
	assert.Regexp(t, `^ord_[a-z2-7]{26}$`, id, "an id from NewOrderID")
	return id
}

// fmCheckResult checks a successful call's result against what was asked.
func fmCheckResult(t *testing.T, op fmOp, orderID string, res any) {
	t.Helper()
	switch r := res.(type) {
	case *upicollect.Intent:
		assert.Equal(t, orderID, r.OrderID)
		assert.Equal(t, upicollect.Rupees(499), r.Amount)
		assert.True(t, strings.HasPrefix(r.Link, "upi://"), r.Link)
	case *upicollect.PaymentRequest:
		assert.Equal(t, orderID, r.OrderID)
		assert.NotEmpty(t, r.PaymentURL)
	case *upicollect.PaymentLink:
		assert.NotEmpty(t, r.URL)
	case *upicollect.PaymentStatus:
		assert.Equal(t, orderID, r.OrderID)
		assert.True(t, r.Paid(), "the setup order was paid: %+v", r)
	default:
		t.Fatalf("%s: unexpected result %T", op, res)
	}
}

// fmMarkdown renders faultMatrix as docs/reliability.md's table: fault × operation →
// what the caller sees.
func fmMarkdown() string {
	var b strings.Builder
	b.WriteString("| Fault | " + strings.Join([]string{
		"createPaymentIntent (OrderID)", "createPaymentRequest (OrderID)", "createPaymentLink",
		"checkPaymentStatus", "createPaymentIntent (no OrderID: the client sets one)"}, " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(fmOps)) + "|\n")
	var rows []string
	cells := map[string]map[fmOp]fmWant{}
	for _, c := range faultMatrix {
		if cells[c.fault.name] == nil {
			cells[c.fault.name] = map[fmOp]fmWant{}
			rows = append(rows, c.fault.name)
		}
		cells[c.fault.name][c.op] = c.want
	}
	for _, row := range rows {
		b.WriteString("| " + row)
		for _, op := range fmOps {
			b.WriteString(" | " + fmDescribe(op, cells[row][op]))
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

func fmDescribe(op fmOp, w fmWant) string {
	var what string
	if w.ok {
		what = "ok"
	} else {
		var names []string
		for _, m := range fmMatchers {
			for _, e := range w.is {
				if e == m.err {
					names = append(names, "`"+m.name+"`")
				}
			}
		}
		what = strings.Join(names, " + ")
	}
	n := fmt.Sprintf("%d attempts", w.attempts)
	if w.attempts == 1 {
		n = "1 attempt"
	}
	if w.retryAfter {
		n += ", waits Retry-After"
	}
	if op.creates() {
		switch w.orders {
		case 0:
			n += ", no order"
		default:
			n += ", 1 order"
		}
	}
	return what + " (" + n + ")"
}
