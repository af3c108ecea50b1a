package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// txnStatus is what the status check answers for id now.
func txnStatus(t *testing.T, s *Server, id string) string {
	t.Helper()
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, id))
	require.Equal(t, 200, a.code, "%s", a.body)
	st, _ := a.json(t)["txnStatus"].(string)
	return st
}

// TestSettleLateAuthorisation schedules a FAIL and a late SUCCESS: the
// status check reports each only from its sandbox time on.
func TestSettleLateAuthorisation(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithSeed(1), WithClock(clock.Now))
	require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "late-1")).code)

	require.NoError(t, s.Settle("late-1", upicollect.TxnFail, t0.Add(time.Minute)))
	require.NoError(t, s.Settle("late-1", upicollect.TxnSuccess, t0.Add(5*time.Hour)))
	o, _ := s.Order("late-1")
	assert.Equal(t, StatusPending, o.Status)
	require.Len(t, o.Scheduled, 2)
	assert.Equal(t, ScheduledChange{Result: StatusFail, At: t0.Add(time.Minute)}, o.Scheduled[0])
	assert.Equal(t, StatusSuccess, o.Scheduled[1].Result)
	assert.Equal(t, "PENDING", txnStatus(t, s, "late-1"))

	clock.Advance(time.Minute - time.Nanosecond)
	assert.Equal(t, "PENDING", txnStatus(t, s, "late-1"), "not before its time")
	clock.Advance(time.Nanosecond)
	assert.Equal(t, "FAIL", txnStatus(t, s, "late-1"))
	o, _ = s.Order("late-1")
	assert.Equal(t, t0.Add(time.Minute), o.SettledAt)
	assert.Len(t, o.Scheduled, 1)

	clock.Advance(5 * time.Hour)
	a := call(t, s, OpCheckPaymentStatus, statusForm(s, "late-1")).json(t)
	assert.Equal(t, "SUCCESS", a["txnStatus"])
	assert.Equal(t, true, a["status"])
	o, _ = s.Order("late-1")
	assert.Equal(t, t0.Add(5*time.Hour), o.SettledAt, "settled at its scheduled time, not when first read")
	assert.Regexp(t, `^[0-9]{12}$`, o.UTR)
	assert.Equal(t, o.UTR, a["data"].(map[string]any)["UTR"])
	assert.Nil(t, o.Scheduled)
	assert.Equal(t, int64(25000), o.PaidPaise)
}

func TestSettleRefusals(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now), WithIntentTTL(time.Minute))
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", id)).code)
	}
	for _, id := range []string{"i1", "i2", "i3"} {
		require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", id)).code)
	}
	require.NoError(t, s.Settle("r1", upicollect.TxnSuccess, time.Time{}), "zero time: now")
	require.NoError(t, s.Settle("r2", upicollect.TxnSuccess, t0.Add(time.Hour)))
	require.NoError(t, s.Settle("r3", upicollect.TxnReject, t0.Add(2*time.Hour)))
	require.NoError(t, s.Settle("i2", upicollect.TxnSuccess, t0.Add(time.Hour)), "started before the expiry, settled after it")

	tests := []struct {
		name, id string
		result   upicollect.TxnStatus
		at       time.Duration
		want     error
	}{
		{"unknown order", "nope", upicollect.TxnSuccess, 0, ErrOrderNotFound},
		{"unknown result", "r4", "MAYBE", 0, ErrInvalidResult},
		{"pending is no outcome", "r4", upicollect.TxnPending, 0, ErrInvalidResult},
		{"SUCCESS is final", "r1", upicollect.TxnFail, time.Hour, ErrOrderSettled},
		{"after a scheduled SUCCESS", "r2", upicollect.TxnFail, 2 * time.Hour, ErrOrderSettled},
		{"before a scheduled SUCCESS that it would follow", "r2", upicollect.TxnSuccess, 30 * time.Minute, ErrOrderSettled},
		{"REJECT then FAIL", "r3", upicollect.TxnFail, 3 * time.Hour, ErrOrderSettled},
		{"a FAIL before a late SUCCESS", "r2", upicollect.TxnFail, 30 * time.Minute, nil},
		{"a late SUCCESS after REJECT", "r3", upicollect.TxnSuccess, 48 * time.Hour, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Settle(tt.id, tt.result, t0.Add(tt.at))
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
	o, _ := s.Order("r3")
	assert.Len(t, o.Scheduled, 2, "a refused change leaves the schedule as it was")

	clock.Advance(time.Minute + time.Second)
	assert.ErrorIs(t, s.Settle("i1", upicollect.TxnSuccess, clock.Now()), ErrIntentExpired, "the payer can no longer start paying")
	require.NoError(t, s.Settle("i1", upicollect.TxnFail, clock.Now()))
	require.NoError(t, s.Settle("i1", upicollect.TxnSuccess, clock.Now()), "a late authorisation after the expiry")
	o, _ = s.Order("i1")
	assert.Equal(t, StatusSuccess, o.Status)
	_, err := s.SettleWith("i3", Settlement{Result: StatusFail})
	require.NoError(t, err)
	_, err = s.SettleWith("i3", Settlement{Result: StatusSuccess})
	assert.ErrorIs(t, err, ErrOrderSettled, "the payer's own choice stays final; only the bank's outcome turns FAIL into SUCCESS")

	clock.Advance(time.Hour)
	o, _ = s.Order("i2")
	assert.Equal(t, StatusSuccess, o.Status)

	// A change the order no longer allows when it comes is dropped: here
	// the payer paid by hand before the scheduled outcome.
	require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "r5")).code)
	require.NoError(t, s.Settle("r5", upicollect.TxnReject, clock.Now().Add(time.Minute)))
	_, err = s.Pay("r5")
	require.NoError(t, err)
	clock.Advance(time.Hour)
	o, _ = s.Order("r5")
	assert.Equal(t, StatusSuccess, o.Status)
	assert.Nil(t, o.Scheduled)
}

// TestPayAfter schedules through the pay endpoint: 202, the change listed
// by /sandbox/orders and the pages, and applied once its time comes.
func TestPayAfter(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithSeed(1), WithClock(clock.Now))
	require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "p-1")).code)
	post := func(form url.Values) answer {
		t.Helper()
		resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/p-1/pay", form)
		require.NoError(t, err)
		defer resp.Body.Close()
		var b json.RawMessage
		_ = json.NewDecoder(resp.Body).Decode(&b)
		return answer{resp.StatusCode, resp.Header, b}
	}
	for _, bad := range []string{"soon", "-1m", "1"} {
		a := post(url.Values{"result": {"SUCCESS"}, "after": {bad}})
		assert.Equal(t, 400, a.code, "after=%s: %s", bad, a.body)
		assert.Contains(t, string(a.body), "after must be a duration")
	}
	a := post(url.Values{"result": {"FAIL"}, "after": {"2m"}})
	require.Equal(t, 202, a.code, "%s", a.body)
	a = post(url.Values{"result": {"success"}, "after": {"26h"}, "utr": {"LATE0001"}})
	require.Equal(t, 202, a.code, "%s", a.body)
	var o Order
	require.NoError(t, json.Unmarshal(a.body, &o))
	assert.Equal(t, StatusPending, o.Status)
	assert.Equal(t, []ScheduledChange{
		{Result: StatusFail, At: t0.Add(2 * time.Minute)},
		{Result: StatusSuccess, At: t0.Add(26 * time.Hour), UTR: "LATE0001"},
	}, o.Scheduled)
	a = post(url.Values{"result": {"REJECT"}, "after": {"30h"}})
	assert.Equal(t, 409, a.code, "SUCCESS is final: %s", a.body)

	var orders []Order
	require.NoError(t, json.Unmarshal(get(t, s, "/sandbox/orders").body, &orders))
	require.Len(t, orders, 1)
	assert.Len(t, orders[0].Scheduled, 2)

	page := string(get(t, s, "/sandbox/pay/p-1").body)
	assert.Contains(t, page, "<li>FAIL at 2025-01-15 15:32:00 IST</li><li>SUCCESS at 2025-01-16 17:30:00 IST</li>")
	assert.Contains(t, page, "<dt>Created</dt><dd>2025-01-15 15:30:00 IST</dd>", "created and scheduled times side by side")
	assert.NotContains(t, page, `class="pay"`, "a payment the bank has yet to answer is not offered again")
	index := string(get(t, s, "/").body)
	assert.Contains(t, index, `<span class="sub">then FAIL at 2025-01-15 15:32:00 IST</span>`)

	clock.Advance(2 * time.Minute)
	assert.Equal(t, "FAIL", txnStatus(t, s, "p-1"))
	assert.Contains(t, string(get(t, s, "/sandbox/pay/p-1").body), "<li>SUCCESS at 2025-01-16 17:30:00 IST</li>")
	clock.Advance(26 * time.Hour)
	assert.Equal(t, "SUCCESS", txnStatus(t, s, "p-1"))
	page = string(get(t, s, "/sandbox/pay/p-1").body)
	assert.Contains(t, page, "UTR <strong>LATE0001</strong>")
	assert.NotContains(t, page, "Scheduled")

	// after=0s settles at once, through the same rules as Settle.
	require.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	id := s.Orders()[1].OrderID
	resp, err := noRedirect(s).PostForm(s.URL()+"/sandbox/orders/"+id+"/pay", url.Values{"result": {"REJECT"}, "after": {"0s"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 202, resp.StatusCode)
	assert.Equal(t, "REJECT", txnStatus(t, s, id))
}

func TestClockEndpoint(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now))
	read := func() (string, time.Time) {
		t.Helper()
		a := get(t, s, "/sandbox/clock")
		require.Equal(t, 200, a.code, "%s", a.body)
		var c struct{ Now string }
		require.NoError(t, json.Unmarshal(a.body, &c))
		at, err := time.Parse(time.RFC3339Nano, c.Now)
		require.NoError(t, err)
		return c.Now, at
	}
	raw, at := read()
	assert.Equal(t, "2025-01-15T10:00:00.000000000Z", raw)
	assert.True(t, at.Equal(t0))
	clock.Advance(72*time.Hour + 7*time.Nanosecond)
	raw, at = read()
	assert.Equal(t, "2025-01-18T10:00:00.000000007Z", raw)
	assert.True(t, at.Equal(t0.Add(72*time.Hour+7)))
}

// TestWalk72Hours walks three days of sandbox time in ten-minute steps
// over a mix of orders with late outcomes: every change shows at the
// first step at or after its time, none before, and the SDK reads the end
// state. No real time passes beyond the test's own work.
func TestWalk72Hours(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithSeed(7), WithClock(clock.Now))
	rng := mrand.New(mrand.NewPCG(7, 7))
	const n = 200
	type plan struct {
		id    string
		steps []ScheduledChange
	}
	plans := make([]plan, n)
	for i := range plans {
		id := fmt.Sprintf("walk-%03d", i)
		require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", id)).code)
		p := plan{id: id}
		at := func(lo, hi time.Duration) time.Time { return t0.Add(lo + time.Duration(rng.Int64N(int64(hi-lo)))) }
		switch i % 5 {
		case 0, 1: // paid within 10 minutes
			p.steps = []ScheduledChange{{Result: StatusSuccess, At: at(time.Second, 10*time.Minute)}}
		case 2: // failed, then paid 2 to 48 hours later
			p.steps = []ScheduledChange{{Result: StatusFail, At: at(time.Minute, 10*time.Minute)},
				{Result: StatusSuccess, At: at(2*time.Hour, 48*time.Hour)}}
		case 3: // rejected
			p.steps = []ScheduledChange{{Result: StatusReject, At: at(time.Minute, time.Hour)}}
		} // case 4: never paid
		for _, c := range p.steps {
			require.NoError(t, s.Settle(id, upicollect.TxnStatus(c.Result), c.At))
		}
		plans[i] = p
	}

	const step = 10 * time.Minute
	seen := map[string]int{} // changes observed, per order
	for now := t0; !now.After(t0.Add(72 * time.Hour)); now = now.Add(step) {
		clock.Advance(now.Sub(clock.Now()))
		for i, o := range s.Orders() {
			p := plans[i]
			want := StatusPending
			applied := 0
			for _, c := range p.steps {
				if !c.At.After(now) {
					want, applied = c.Result, applied+1
				}
			}
			require.Equal(t, want, o.Status, "%s at %v", p.id, now)
			require.Len(t, o.Scheduled, len(p.steps)-applied)
			if applied > 0 {
				require.Equal(t, p.steps[applied-1].At, o.SettledAt)
			}
			seen[p.id] = applied
		}
	}
	counts := map[upicollect.TxnStatus]int{}
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range plans {
		require.Equal(t, len(p.steps), seen[p.id])
		st, err := c.CheckPaymentStatus(ctx, p.id)
		require.NoError(t, err)
		counts[st.TxnStatus]++
	}
	assert.Equal(t, map[upicollect.TxnStatus]int{upicollect.TxnSuccess: 120, upicollect.TxnReject: 40, upicollect.TxnPending: 40}, counts)
}
