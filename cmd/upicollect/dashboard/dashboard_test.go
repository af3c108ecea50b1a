package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

const testTimeout = 30 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// now is the tests' "today": 10:00 IST. Events are spread over the days
// before it.
var now = time.Date(2026, 11, 26, 10, 0, 0, 0, upicollect.IndiaTime)

// shopLedger is a memory ledger whose orders a sweeper took, through a
// sandbox of the service, to every state: steps at chosen times spread the
// events over four days.
//
//	paid-a, failed-a          created 3 days ago: paid, rejected
//	paid-b, mismatch-b        2 days ago: paid, paid 450.00 of 499.00
//	expired-c, unknown-c,     yesterday: never paid (expired), never created
//	late-c                      at the service (expired, not found), paid
//	                            after it expired (late_paid, today)
//	pending-d, untracked-d    today: not paid yet, untracked
func shopLedger(t *testing.T) (reconcile.Store, *sandbox.Server) {
	ctx := testContext(t)
	s := sandbox.Start(t)
	st := reconcile.NewMemoryStore()
	sw, err := reconcile.New(s.Client(), st, func(context.Context, reconcile.Event) error { return nil })
	require.NoError(t, err)
	create := func(id string) {
		_, err := s.Client().CreatePaymentIntent(ctx, &upicollect.IntentParams{
			Amount: upicollect.Rupees(499), OrderID: id, RedirectURL: "https://shop.example/thanks", Note: "Order " + id,
			Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
		})
		require.NoError(t, err, id)
	}
	track := func(id string, amount upicollect.Money, created time.Time) {
		require.NoError(t, sw.Track(ctx, reconcile.Order{ID: id, Amount: amount, Created: created}), id)
	}
	settle := func(id, result string, paise int64) {
		_, err := s.SettleWith(id, sandbox.Settlement{Result: result, PaidPaise: paise})
		require.NoError(t, err, id)
	}
	step := func(at time.Time) {
		_, err := sw.Step(ctx, at)
		require.NoError(t, err)
	}

	day3, day2, day1 := now.AddDate(0, 0, -3).Add(2*time.Hour), now.AddDate(0, 0, -2), now.AddDate(0, 0, -1)
	for _, id := range []string{"paid-a", "failed-a", "paid-b", "mismatch-b", "expired-c", "late-c", "pending-d", "untracked-d"} {
		create(id)
	}
	track("paid-a", upicollect.Rupees(499), day3)
	track("failed-a", upicollect.Rupees(499), day3)
	settle("paid-a", sandbox.StatusSuccess, 0)
	settle("failed-a", sandbox.StatusReject, 0)
	step(day3.Add(time.Minute))

	track("paid-b", upicollect.Rupees(499), day2)
	track("mismatch-b", upicollect.Rupees(499), day2)
	settle("paid-b", sandbox.StatusSuccess, 0)
	settle("mismatch-b", sandbox.StatusSuccess, 45000)
	step(day2.Add(time.Minute))

	for _, id := range []string{"expired-c", "unknown-c", "late-c"} {
		track(id, upicollect.Rupees(499), day1)
	}
	step(day1.Add(16 * time.Minute))
	settle("late-c", sandbox.StatusSuccess, 0)

	track("pending-d", upicollect.Rupees(499), now.Add(-time.Minute))
	track("untracked-d", upicollect.Rupees(499), now.Add(-time.Minute))
	step(now)
	require.NoError(t, st.Untrack(ctx, "untracked-d"))
	return st, s
}

// serve serves the dashboard over l on loopback, on the tests' clock.
func serve(t *testing.T, l Ledger, opts ...Option) *httptest.Server {
	srv := httptest.NewServer(New(l, append([]Option{WithClock(func() time.Time { return now })}, opts...)...))
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path with headers (name, value pairs) and returns the status
// and body.
func get(t *testing.T, srv *httptest.Server, path string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, srv.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

var reCard = regexp.MustCompile(`data-state="([a-z_]+)"><span class="name">[^<]*</span><span class="count" data-count>(\d+)</span>`)

// pageCounts reads the cards' numbers back from the overview.
func pageCounts(t *testing.T, body string) map[string]int {
	out := map[string]int{}
	for _, m := range reCard.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		out[m[1]] = n
	}
	return out
}

// TestOverviewCountsAreTheLedgers: the cards say what Counts says, state
// by state, and the total is their sum.
func TestOverviewCountsAreTheLedgers(t *testing.T) {
	st, _ := shopLedger(t)
	srv := serve(t, st)
	code, body := get(t, srv, "/")
	require.Equal(t, http.StatusOK, code, body)
	counts, err := st.Counts(testContext(t))
	require.NoError(t, err)
	want := map[string]int{"total": 0}
	for _, s := range States {
		want[string(s)] = counts[s]
		want["total"] += counts[s]
	}
	assert.Equal(t, want, pageCounts(t, body))
	assert.Equal(t, map[string]int{"total": 9, "pending": 1, "paid": 2, "failed": 1, "expired": 2, "late_paid": 1, "mismatch": 1, "untracked": 1},
		pageCounts(t, body), "each state the ledger was taken to")
	assert.Contains(t, body, "As of 26 Nov 2026, 10:00:00 IST")
}

var reListRows = regexp.MustCompile(`(?s)data-list="([a-z_]+)".*?</section>`)
var reRowID = regexp.MustCompile(`data-order="([^"]+)"`)

// TestNeedsAPerson: the lists a person must act on hold exactly the
// orders paid late, paid the wrong amount, and never known to the service
// (an order that merely expired is not among them).
func TestNeedsAPerson(t *testing.T) {
	st, _ := shopLedger(t)
	_, body := get(t, serve(t, st), "/")
	lists := map[string][]string{}
	for _, m := range reListRows.FindAllStringSubmatch(body, -1) {
		ids := []string{}
		for _, r := range reRowID.FindAllStringSubmatch(m[0], -1) {
			ids = append(ids, r[1])
		}
		lists[m[1]] = ids
	}
	// The sandbox, as the live service, answers "not found" for an order
	// nobody started to pay: both expired orders are among the unknown.
	assert.Equal(t, map[string][]string{"late_paid": {"late-c"}, "mismatch": {"mismatch-b"}, "unknown": {"unknown-c", "expired-c"}}, lists)
	assert.Contains(t, body, "₹450.00", "the mismatch shows what was paid")
}

// TestChartCountsTheEvents: the chart draws each day's events, in India
// time, and its legend and table say the same numbers.
func TestChartCountsTheEvents(t *testing.T) {
	st, _ := shopLedger(t)
	_, body := get(t, serve(t, st), "/")
	assert.Contains(t, body, `data-total="8"`, "paid 2, failed 1, mismatch 1, expired 3, late_paid 1: every event once")
	for _, title := range []string{"23 Nov: 1 paid", "23 Nov: 1 failed", "24 Nov: 1 paid", "24 Nov: 1 mismatch", "25 Nov: 3 expired", "26 Nov: 1 late paid"} {
		assert.Contains(t, body, "<title>"+title+"</title>")
	}
	assert.NotContains(t, body, "<script")
	assert.NotRegexp(t, `(src|href)="https?://`, body, "no external asset")
}

func TestNewChart(t *testing.T) {
	ev := func(r reconcile.Result, at time.Time) reconcile.Event { return reconcile.Event{Result: r, At: at} }
	orders := []reconcile.OrderState{
		{Events: []reconcile.Event{ev(reconcile.Paid, time.Date(2026, 11, 25, 18, 29, 0, 0, time.UTC))}}, // 23:59 IST on the 25th
		{Events: []reconcile.Event{ev(reconcile.Paid, time.Date(2026, 11, 25, 18, 30, 0, 0, time.UTC))}}, // 00:00 IST on the 26th
		{Events: []reconcile.Event{ev(reconcile.Failed, now.Add(-time.Hour)), ev(reconcile.LatePaid, now)}},
		{Events: []reconcile.Event{ev(reconcile.Expired, now.AddDate(0, 0, -14))}}, // before the chart's first day
		{Events: []reconcile.Event{ev(reconcile.Paid, now.AddDate(0, 0, 1))}},      // after its last
	}
	c := newChart(orders, now, 14)
	require.Len(t, c.Bars, 14)
	assert.Equal(t, 4, c.Total)
	assert.Equal(t, 1, c.Days[12].Total, "25 Nov")
	assert.Equal(t, 3, c.Days[13].Total, "26 Nov")
	assert.Equal(t, []int{1, 1, 0, 1, 0}, c.Days[13].Counts, "paid, late_paid, mismatch, failed, expired")
	assert.Equal(t, "26 Nov", c.Bars[13].Label, "today is labelled")
	assert.Empty(t, c.Bars[12].Label, "every other day")
	assert.Equal(t, 4, niceCeil(3))
	today := c.Bars[13]
	require.Len(t, today.Segs, 3)
	bottom := today.Segs[0].Y + today.Segs[0].H
	assert.InDelta(t, chartH-chartBottom, bottom, 0.01, "bars stand on the axis")
	assert.InDelta(t, (chartH-chartTop-chartBottom)*3/4, today.Segs[0].H*3, 0.01, "one event is a quarter of a 4 scale")
	assert.Equal(t, []int{0, 2, 4}, []int{c.Ticks[0].Value, c.Ticks[1].Value, c.Ticks[2].Value})
	for _, n := range []struct{ in, out int }{{0, 2}, {2, 2}, {5, 5}, {6, 10}, {11, 20}, {41, 50}, {101, 200}} {
		assert.Equal(t, n.out, niceCeil(n.in), n.in)
	}
}

// TestOrderPage: an order's page shows its state, checks and events in
// India time; an order the ledger does not know is a 404.
func TestOrderPage(t *testing.T) {
	st, _ := shopLedger(t)
	srv := serve(t, st)
	code, body := get(t, srv, "/orders/late-c")
	require.Equal(t, http.StatusOK, code, body)
	s, err := st.Lookup(testContext(t), "late-c")
	require.NoError(t, err)
	assert.Contains(t, body, `<span class="badge b-late_paid" data-order-state>late paid</span>`)
	assert.Contains(t, body, "<dd data-checks>"+strconv.Itoa(s.Checks)+"</dd>")
	assert.Regexp(t, `(?s)data-event="expired".*the service does not know the order.*data-event="late_paid".*SUCCESS · UTR \d{12}`, body)
	assert.Contains(t, body, "25 Nov 2026, 10:16:00 IST", "the expiry, in India time")
	assert.Contains(t, body, "26 Nov 2026, 10:00:00 IST")

	code, body = get(t, srv, "/orders/no-such-order")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, body, "No order <strong>no-such-order</strong> is tracked")
	code, _ = get(t, srv, "/orders/%3Cscript%3E")
	assert.Equal(t, http.StatusNotFound, code)
}

// TestListPage: /orders lists by state and pages through the ledger.
func TestListPage(t *testing.T) {
	st, _ := shopLedger(t)
	srv := serve(t, st)
	_, body := get(t, srv, "/orders?state=expired")
	ids := reRowID.FindAllStringSubmatch(body, -1)
	require.Len(t, ids, 2)
	assert.ElementsMatch(t, []string{"expired-c", "unknown-c"}, []string{ids[0][1], ids[1][1]})
	code, _ := get(t, srv, "/orders?state=bogus")
	assert.Equal(t, http.StatusBadRequest, code)
	_, body = get(t, srv, "/orders")
	assert.Len(t, reRowID.FindAllStringSubmatch(body, -1), 9)
	assert.NotContains(t, body, `rel="next"`, "one page")
}

// TestNotFound: only an expiry the service explained as "not found"
// puts an order among those it never knew.
func TestNotFound(t *testing.T) {
	expired := func(reason string) *reconcile.OrderState {
		return &reconcile.OrderState{Events: []reconcile.Event{{Result: reconcile.Expired, Reason: reason}}}
	}
	assert.True(t, notFound(expired(reconcile.ReasonNotFound)))
	assert.False(t, notFound(expired(reconcile.ReasonNoFinalState)))
	assert.False(t, notFound(&reconcile.OrderState{Events: []reconcile.Event{{Result: reconcile.Failed, Reason: reconcile.ReasonNotFound}}}))
}

// vpaLedger is a ledger whose events carry a payer's VPA, as a store that
// kept the whole status answer would.
type vpaLedger struct{ Ledger }

func (v vpaLedger) Lookup(ctx context.Context, id string) (*reconcile.OrderState, error) {
	s, err := v.Ledger.Lookup(ctx, id)
	if err == nil {
		for i := range s.Events {
			if s.Events[i].Status != nil {
				s.Events[i].Status.VPA = "ravikumar@okaxis"
			}
		}
	}
	return s, err
}

// TestNoCustomerDetails: no page carries the customer's e-mail, mobile or
// VPA unmasked.
func TestNoCustomerDetails(t *testing.T) {
	st, _ := shopLedger(t)
	srv := serve(t, vpaLedger{st})
	for _, path := range []string{"/", "/orders", "/orders/paid-a", "/orders/late-c"} {
		_, body := get(t, srv, path)
		for _, secret := range []string{"ravi@example.com", "9876543210", "ravikumar@okaxis", "Ravi Kumar"} {
			assert.NotContains(t, body, secret, path)
		}
	}
	_, body := get(t, srv, "/orders/paid-a")
	assert.Contains(t, body, "payer ra***@okaxis")
}

// TestGuard: only requests naming this machine, from its own pages or
// none, are answered; the dashboard only reads.
func TestGuard(t *testing.T) {
	st, _ := shopLedger(t)
	srv := serve(t, st, WithHosts("ledger.internal:8790"))
	tests := []struct {
		name    string
		headers []string
		want    int
	}{
		{"loopback", nil, http.StatusOK},
		{"localhost", []string{"Host", "localhost:8790"}, http.StatusOK},
		{"configured host", []string{"Host", "LEDGER.internal"}, http.StatusOK},
		{"rebinding", []string{"Host", "evil.example:8790"}, http.StatusForbidden},
		{"cross-site fetch", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty"}, http.StatusForbidden},
		{"cross-site frame", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}, http.StatusForbidden},
		{"link from elsewhere", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, http.StatusOK},
		{"same origin", []string{"Sec-Fetch-Site", "same-origin", "Origin", srv.URL}, http.StatusOK},
		{"foreign origin", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"own host, other scheme", []string{"Origin", strings.Replace(srv.URL, "http://", "ftp://", 1)}, http.StatusForbidden},
		{"same site is not same origin", []string{"Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "image"}, http.StatusForbidden},
		{"typed in the address bar", []string{"Sec-Fetch-Site", "none", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, http.StatusOK},
		{"loopback IPv6", []string{"Host", "[::1]:8790"}, http.StatusOK},
		{"a subdomain of localhost", []string{"Host", "shop.localhost:8790"}, http.StatusOK},
		{"localhost as a suffix only", []string{"Host", "evillocalhost:8790"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		code, _ := get(t, srv, "/", tt.headers...)
		assert.Equal(t, tt.want, code, tt.name)
	}
	res, err := srv.Client().Post(srv.URL+"/", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	res, err = srv.Client().Get(srv.URL + "/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
}

// TestDashboardOnlyReads: serving every page changes nothing in the
// ledger.
func TestDashboardOnlyReads(t *testing.T) {
	st, _ := shopLedger(t)
	ctx := testContext(t)
	before, err := st.List(ctx, reconcile.ListQuery{Limit: 100})
	require.NoError(t, err)
	nextBefore, _, err := st.NextDue(ctx, time.Now())
	require.NoError(t, err)
	srv := serve(t, st)
	for _, path := range []string{"/", "/orders", "/orders?state=late_paid", "/orders/late-c", "/orders/pending-d"} {
		code, _ := get(t, srv, path)
		assert.Equal(t, http.StatusOK, code, path)
	}
	after, err := st.List(ctx, reconcile.ListQuery{Limit: 100})
	require.NoError(t, err)
	nextAfter, _, err := st.NextDue(ctx, time.Now())
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Equal(t, nextBefore, nextAfter)
}

var reNext = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)

// TestListPages: a list longer than a page links to the next, which
// starts after the last order shown, and the last page links nowhere.
func TestListPages(t *testing.T) {
	st := reconcile.NewMemoryStore()
	ctx := testContext(t)
	for i := range 60 {
		created := now.Add(-time.Duration(i) * time.Minute)
		o := reconcile.Order{ID: "ord-" + strconv.Itoa(100+i), Amount: upicollect.Rupees(int64(100 + i)), Created: created}
		require.NoError(t, st.Track(ctx, o, created.Add(10*time.Second)))
	}
	srv := serve(t, st)
	var seen []string
	path := "/orders?state=pending"
	for pages := 0; path != ""; pages++ {
		require.Less(t, pages, 3, "60 orders are two pages")
		code, body := get(t, srv, strings.ReplaceAll(path, "&amp;", "&"))
		require.Equal(t, http.StatusOK, code, body)
		for _, m := range reRowID.FindAllStringSubmatch(body, -1) {
			seen = append(seen, m[1])
		}
		path = ""
		if m := reNext.FindStringSubmatch(body); m != nil {
			path = m[1]
		}
	}
	require.Len(t, seen, 60)
	assert.Equal(t, "ord-100", seen[0], "newest first")
	assert.Equal(t, "ord-159", seen[59])
}

// TestEmptyLedger: a ledger with no order yet shows zeros, an empty chart
// and empty lists, not an error.
func TestEmptyLedger(t *testing.T) {
	srv := serve(t, reconcile.NewMemoryStore())
	code, body := get(t, srv, "/")
	require.Equal(t, http.StatusOK, code, body)
	counts := pageCounts(t, body)
	assert.Len(t, counts, len(States)+1)
	for state, n := range counts {
		assert.Zero(t, n, state)
	}
	assert.Contains(t, body, `data-total="0"`)
	assert.Equal(t, 4, strings.Count(body, `<p class="empty">None.</p>`), "three lists that need a person, and the newest orders")
}
