package sandbox

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOffsetClock: the clock follows its base at its pace, plus what was
// advanced; Set makes it read a time now and then follow the base again.
func TestOffsetClock(t *testing.T) {
	base := newFakeClock()
	c := NewOffsetClock(base.Now)
	var _ MovableClock = c
	var _ MovableClock = base
	assert.True(t, c.Now().Equal(t0), "no offset at first")

	assert.True(t, c.Advance(2*time.Hour).Equal(t0.Add(2*time.Hour)), "Advance returns the new time")
	base.Advance(time.Minute)
	assert.True(t, c.Now().Equal(t0.Add(2*time.Hour+time.Minute)), "runs at the base's pace")
	assert.Equal(t, 2*time.Hour, c.Offset())

	c.Set(t0.Add(48 * time.Hour))
	assert.True(t, c.Now().Equal(t0.Add(48*time.Hour)))
	assert.Equal(t, 48*time.Hour-time.Minute, c.Offset())
	base.Advance(time.Second)
	assert.True(t, c.Now().Equal(t0.Add(48*time.Hour+time.Second)))

	real := NewOffsetClock(nil)
	before := time.Now()
	got := real.Advance(time.Hour)
	assert.False(t, got.Before(before.Add(time.Hour)), "nil base is time.Now")
	assert.False(t, got.After(time.Now().Add(time.Hour)), "nil base is time.Now")
}

// clockPost sends body to POST /sandbox/clock with header and returns
// the answer.
func clockPost(t *testing.T, s *Server, body string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+clockPath, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return send(t, s, req)
}

// TestMoveClockEndpoint: POST /sandbox/clock moves a movable clock
// forward, answers the new time, and refuses what it must, leaving the
// clock where it was.
func TestMoveClockEndpoint(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		header  map[string]string
		code    int
		wantNow time.Time // the clock after the call
		errText string
	}{
		{name: "advance", body: `{"advance":"2h"}`, code: 200, wantNow: t0.Add(2 * time.Hour)},
		{name: "advance by nothing", body: `{"advance":"0s"}`, code: 200, wantNow: t0},
		{name: "advance to the nanosecond", body: `{"advance":"72h0m0.000000007s"}`, code: 200, wantNow: t0.Add(72*time.Hour + 7)},
		{name: "set forward", body: `{"set":"2025-03-01T10:00:00+05:30"}`, code: 200, wantNow: time.Date(2025, 3, 1, 4, 30, 0, 0, time.UTC)},
		{name: "set to now", body: `{"set":"2025-01-15T10:00:00Z"}`, code: 200, wantNow: t0},
		{name: "set back", body: `{"set":"2025-01-15T09:59:59.999999999Z"}`, code: 409, wantNow: t0, errText: "only moves forward"},
		{name: "advance back", body: `{"advance":"-1ns"}`, code: 400, wantNow: t0, errText: "not negative"},
		{name: "bad duration", body: `{"advance":"2 hours"}`, code: 400, wantNow: t0, errText: "advance must be a duration"},
		{name: "bad time", body: `{"set":"tomorrow"}`, code: 400, wantNow: t0, errText: "set must be an RFC 3339 time"},
		{name: "both", body: `{"advance":"1h","set":"2026-01-01T00:00:00Z"}`, code: 400, wantNow: t0, errText: `{\"advance\":\"2h\"}`},
		{name: "neither", body: `{}`, code: 400, wantNow: t0, errText: "body must be JSON"},
		{name: "typo", body: `{"advanced":"1h"}`, code: 400, wantNow: t0, errText: "body must be JSON"},
		{name: "not JSON", body: `advance=1h`, code: 400, wantNow: t0, errText: "body must be JSON"},
		{name: "cross-site", body: `{"advance":"1h"}`, header: map[string]string{"Sec-Fetch-Site": "cross-site"}, code: 403, wantNow: t0},
		{name: "foreign origin", body: `{"advance":"1h"}`, header: map[string]string{"Origin": "https://evil.example"}, code: 403, wantNow: t0},
		{name: "rebinding host", body: `{"advance":"1h"}`, header: map[string]string{"Host": "evil.example"}, code: 421, wantNow: t0},
		{name: "same origin", body: `{"advance":"1h"}`, header: map[string]string{"Sec-Fetch-Site": "same-origin"}, code: 200, wantNow: t0.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			s := Start(t, WithMovableClock(clock))
			a := clockPost(t, s, tt.body, tt.header)
			require.Equal(t, tt.code, a.code, "%s", a.body)
			assert.True(t, clock.Now().Equal(tt.wantNow), "clock at %v, want %v", clock.Now(), tt.wantNow)
			assert.Contains(t, string(a.body), tt.errText)
			if tt.code == 200 {
				assert.JSONEq(t, `{"now":"`+tt.wantNow.Format(clockFormat)+`"}`, string(a.body))
				assert.Equal(t, a.body, get(t, s, clockPath).body, "GET answers the same time")
			}
		})
	}
}

// TestMoveClockNotMovable: a sandbox on real time or on WithClock's clock
// answers 409 and its time is not moved.
func TestMoveClockNotMovable(t *testing.T) {
	clock := newFakeClock()
	for name, opts := range map[string][]Option{
		"real time":                {},
		"WithClock":                {WithClock(clock.Now)},
		"WithClock after movable":  {WithMovableClock(clock), WithClock(clock.Now)},
		"WithClock before movable": {WithClock(time.Now), WithMovableClock(NewManualClock(t0)), WithClock(clock.Now)},
	} {
		t.Run(name, func(t *testing.T) {
			s := Start(t, opts...)
			a := clockPost(t, s, `{"advance":"1h"}`, nil)
			assert.Equal(t, http.StatusConflict, a.code, "%s", a.body)
			assert.Contains(t, string(a.body), "cannot be moved")
			assert.True(t, clock.Now().Equal(t0), "clock not moved")
		})
	}
	_, err := NewService(WithMovableClock(nil))
	assert.ErrorContains(t, err, "WithMovableClock: nil clock")
}

// TestMoveClockSettlesLatePayment: a payment scheduled with after takes
// effect once the clock is advanced over HTTP, as `upicollect sandbox
// advance` does, and not before.
func TestMoveClockSettlesLatePayment(t *testing.T) {
	s := Start(t, WithSeed(1), WithMovableClock(NewOffsetClock(newFakeClock().Now)))
	require.Equal(t, 200, call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "late-1")).code)
	resp, err := s.HTTPClient().PostForm(s.URL()+"/sandbox/orders/late-1/pay",
		url.Values{"result": {"SUCCESS"}, "after": {"3h"}})
	require.NoError(t, err)
	require.Equal(t, 202, readAnswer(t, resp).code)

	a := clockPost(t, s, `{"advance":"2h59m59s"}`, nil)
	require.Equal(t, 200, a.code, "%s", a.body)
	assert.Equal(t, "PENDING", txnStatus(t, s, "late-1"), "a second early")

	a = clockPost(t, s, `{"advance":"1s"}`, nil)
	require.Equal(t, 200, a.code, "%s", a.body)
	var now struct{ Now string }
	require.NoError(t, json.Unmarshal(a.body, &now))
	assert.Equal(t, "2025-01-15T13:00:00.000000000Z", now.Now)
	assert.Equal(t, "SUCCESS", txnStatus(t, s, "late-1"), "due now")
	o, _ := s.Order("late-1")
	assert.True(t, o.SettledAt.Equal(t0.Add(3*time.Hour)), "settled at its scheduled time: %v", o.SettledAt)
}

// TestMoveClockBounds: the clock moves to any time up to lastClockTime,
// and no further: an advance or set past it is refused with 409, one
// that is not a duration (beyond time.Duration) with 400, and the clock
// stays where it was. An OffsetClock, which `upicollect sandbox` serves
// on, holds more than a time.Duration of offset without wrapping.
func TestMoveClockBounds(t *testing.T) {
	const maxDuration = "2562047h47m16.854775807s" // time.Duration's largest
	last := time.Date(9998, 12, 31, 23, 59, 59, 999999999, time.UTC)
	type step struct {
		body string
		code int
	}
	tests := []struct {
		name    string
		steps   []step
		wantNow time.Time
		errText string // in the last step's answer
	}{
		{name: "the largest duration", steps: []step{{`{"advance":"` + maxDuration + `"}`, 200}},
			wantNow: t0.Add(math.MaxInt64)},
		{name: "the largest duration twice: no wrap", steps: []step{{`{"advance":"2562047h"}`, 200}, {`{"advance":"2562047h"}`, 200}},
			wantNow: t0.Add(2562047 * time.Hour).Add(2562047 * time.Hour)},
		{name: "beyond a duration", steps: []step{{`{"advance":"2562048h"}`, 400}},
			wantNow: t0, errText: "advance must be a duration"},
		{name: "set to the last time", steps: []step{{`{"set":"9998-12-31T23:59:59.999999999Z"}`, 200}},
			wantNow: last},
		{name: "set a nanosecond past it", steps: []step{{`{"set":"9999-01-01T00:00:00Z"}`, 409}},
			wantNow: t0, errText: "cannot move past 9998-12-31T23:59:59.999999999Z"},
		{name: "set to the year's end", steps: []step{{`{"set":"9999-12-31T00:00:00Z"}`, 409}},
			wantNow: t0, errText: "the clock did not move"},
		{name: "set to the last time in India time", steps: []step{{`{"set":"9999-01-01T05:29:59.999999999+05:30"}`, 200}},
			wantNow: last},
		{name: "advance onto the last time", steps: []step{{`{"set":"9998-12-31T23:59:59.999999998Z"}`, 200}, {`{"advance":"1ns"}`, 200}},
			wantNow: last},
		{name: "advance past the last time", steps: []step{{`{"set":"9998-12-31T23:59:59.999999999Z"}`, 200}, {`{"advance":"1ns"}`, 409}},
			wantNow: last, errText: "cannot move past"},
		{name: "advance by nothing at the last time", steps: []step{{`{"set":"9998-12-31T23:59:59.999999999Z"}`, 200}, {`{"advance":"0s"}`, 200}},
			wantNow: last},
		{name: "advance far past it, near the end of time.Time", steps: []step{{`{"set":"9998-12-31T00:00:00Z"}`, 200}, {`{"advance":"` + maxDuration + `"}`, 409}},
			wantNow: time.Date(9998, 12, 31, 0, 0, 0, 0, time.UTC), errText: "cannot move past"},
		{name: "back from the last time", steps: []step{{`{"set":"9998-12-31T23:59:59.999999999Z"}`, 200}, {`{"set":"2025-01-15T10:00:00Z"}`, 409}},
			wantNow: last, errText: "only moves forward"},
	}
	clocks := map[string]func() MovableClock{
		"ManualClock": func() MovableClock { return newFakeClock() },
		"OffsetClock": func() MovableClock { return NewOffsetClock(newFakeClock().Now) },
	}
	for kind, newClock := range clocks {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				clock := newClock()
				s := Start(t, WithMovableClock(clock))
				var a answer
				for _, st := range tt.steps {
					a = clockPost(t, s, st.body, nil)
					require.Equal(t, st.code, a.code, "%s: %s", st.body, a.body)
				}
				assert.True(t, clock.Now().Equal(tt.wantNow), "clock at %v, want %v", clock.Now(), tt.wantNow)
				assert.Contains(t, string(a.body), tt.errText)
				assert.JSONEq(t, `{"now":"`+tt.wantNow.Format(clockFormat)+`"}`, string(get(t, s, clockPath).body))
			})
		}
	}
}

// TestOffsetClockBeyondDuration: an OffsetClock moved further than a
// time.Duration reads the time it was moved to and runs on at its base's
// pace; Offset saturates.
func TestOffsetClockBeyondDuration(t *testing.T) {
	base := newFakeClock()
	c := NewOffsetClock(base.Now)
	far := time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set(far)
	assert.True(t, c.Now().Equal(far))
	assert.Equal(t, time.Duration(math.MaxInt64), c.Offset(), "saturated")
	base.Advance(time.Minute)
	assert.True(t, c.Now().Equal(far.Add(time.Minute)))
	assert.True(t, c.Advance(math.MaxInt64).Equal(far.Add(time.Minute).Add(math.MaxInt64)))
	c.Set(t0.Add(-time.Hour))
	assert.Equal(t, -time.Hour-time.Minute, c.Offset(), "behind its base")
}
