package storetest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// answerCase is a status answer for the tracked order ORD-A, served to a
// Sweeper on the store under test.
type answerCase struct {
	name string
	body string
	// settles says the answer names ORD-A and settles it (Paid); else it
	// settles nothing and ORD-A is checked again.
	settles bool
	// refused says the client refuses the answer (it names another order):
	// Confirm returns the check's error.
	refused bool
}

// paidData is the data of a SUCCESS of 499.00 without an order key.
const paidData = `"amount":"499.00","status":"SUCCESS","UTR":"1"`

// answerCases are the answers that name another order than ORD-A, under
// another spelling of an order key or in a twin of data, or none, which
// once credited ORD-A (the ledger re-read the body leniently), and the
// answer that names it.
var answerCases = []answerCase{
	{"ORDER_ID names another order", `{"status":true,"statusCode":200,"msg":"ok","data":{"ORDER_ID":"ORD-B",` + paidData + `}}`, false, true},
	{"Order_Id names another order", `{"status":true,"statusCode":200,"msg":"ok","data":{"Order_Id":"ORD-B",` + paidData + `}}`, false, true},
	{"orderID names another order", `{"status":true,"statusCode":200,"msg":"ok","data":{"orderID":"ORD-B",` + paidData + `}}`, false, true},
	{"a numeric ORDERID", `{"status":true,"statusCode":200,"msg":"ok","data":{"ORDERID":12345,` + paidData + `}}`, false, true},
	{"a second Data names another order", `{"status":true,"statusCode":200,"msg":"ok","data":{` + paidData + `},"Data":{"ORDER_ID":"ORD-B",` + paidData + `}}`, false, true},
	{"order_id names another order", `{"status":true,"statusCode":200,"msg":"ok","data":{"order_id":"ORD-B",` + paidData + `}}`, false, true},
	{"ORDER_ID names the order, no order_id", `{"status":true,"statusCode":200,"msg":"ok","data":{"ORDER_ID":"ORD-A",` + paidData + `}}`, false, false},
	{"a second Data names the order, data none", `{"status":true,"statusCode":200,"msg":"ok","data":{` + paidData + `},"Data":{"order_id":"ORD-A"}}`, false, false},
	{"no order key", `{"status":true,"statusCode":200,"msg":"ok","data":{` + paidData + `}}`, false, false},
	{"order_id names the order", `{"status":true,"statusCode":200,"msg":"ok","data":{"order_id":"ORD-A",` + paidData + `}}`, true, false},
}

// testAnswers feeds each of answerCases to Sweeper.Step and Sweeper.Confirm
// on a store of its own: an answer that does not name ORD-A, or names
// another order under any spelling, delivers no event, and the order stays
// pending and is checked again, each check counted in Stats.Errors.
func testAnswers(t *testing.T, newStore func(t *testing.T) reconcile.Store) {
	for _, tc := range answerCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxFor(t)
			st := newStore(t)
			var checks atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				checks.Add(1)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			c, err := upicollect.NewClient(upicollect.Credentials{MID: "MID-STORETEST", PublicKey: "pk_storetest", SecretKey: "sk_storetest"},
				upicollect.WithBaseURL(srv.URL), upicollect.WithHTTPClient(srv.Client()),
				upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
			require.NoError(t, err)
			var (
				mu        sync.Mutex
				delivered []reconcile.Event
				now       = T0.Add(time.Minute)
			)
			at := func(t time.Time) time.Time {
				mu.Lock()
				defer mu.Unlock()
				now = t
				setClock(st, t)
				return t
			}
			sw, err := reconcile.New(c, st, func(_ context.Context, e reconcile.Event) error {
				mu.Lock()
				defer mu.Unlock()
				delivered = append(delivered, e)
				return nil
			}, reconcile.WithClock(func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return now
			}))
			require.NoError(t, err)
			events := func() []reconcile.Event {
				mu.Lock()
				defer mu.Unlock()
				return append([]reconcile.Event(nil), delivered...)
			}
			o := reconcile.Order{ID: "ORD-A", Amount: upicollect.Rupees(499), Created: T0}
			require.NoError(t, sw.Track(ctx, o))

			stats, err := sw.Step(ctx, at(T0.Add(time.Minute)))
			require.NoError(t, err)
			assert.Equal(t, int64(1), checks.Load(), "one check")
			if tc.settles {
				assert.Equal(t, 1, stats.Paid)
				require.Len(t, events(), 1)
				assert.Equal(t, reconcile.Paid, events()[0].Result)
				s, err := sw.Confirm(ctx, o.ID)
				require.NoError(t, err)
				assert.Equal(t, reconcile.Paid, s.State)
				assert.Equal(t, int64(1), checks.Load(), "a paid order is not checked again")
				return
			}
			assert.Equal(t, 1, stats.Errors, "the check counts as an error")
			assert.Zero(t, stats.Checked+stats.Paid+stats.Mismatch+stats.LatePaid)
			assert.Empty(t, events(), "no event")
			s, err := sw.Lookup(ctx, o.ID)
			require.NoError(t, err)
			assert.Equal(t, reconcile.Pending, s.State)
			assert.Empty(t, s.Events)
			assert.Equal(t, 1, s.Failures)
			require.True(t, s.Next.After(T0.Add(time.Minute)), "checked again later: %v", s.Next)

			s, err = sw.Confirm(ctx, o.ID)
			assert.Equal(t, int64(2), checks.Load(), "Confirm checks")
			if tc.refused {
				require.Error(t, err)
				assert.True(t, errors.Is(err, upicollect.ErrUnexpectedResponse), "%v", err)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, s)
			assert.Equal(t, reconcile.Pending, s.State)
			assert.Empty(t, s.Events)
			assert.Equal(t, 2, s.Failures)
			assert.Empty(t, events(), "no event")

			stats, err = sw.Step(ctx, at(s.Next))
			require.NoError(t, err)
			assert.Equal(t, int64(3), checks.Load(), "checked again when due")
			assert.Equal(t, 1, stats.Errors)
			assert.Empty(t, events(), "no event")
		})
	}
}

// setClock sets the clock of a store RunClocked made to now; other stores
// keep none.
func setClock(st reconcile.Store, now time.Time) {
	if c, ok := st.(*clocked); ok {
		c.clock.Set(now.UTC())
	}
}
