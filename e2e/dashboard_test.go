package e2e

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/dashboard"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/sandbox"
)

// dashboardNow is the dashboard's "today" in these tests: 10:00 IST.
var dashboardNow = time.Date(2026, 11, 26, 10, 0, 0, 0, upicollect.IndiaTime)

// laptop1366 is the common laptop screen the dashboard is checked on.
var laptop1366 = viewport{"1366x768", 1366, 768, 1, false}

// dashboardLedger is a memory ledger whose orders a sweeper took, through
// a sandbox, to every state, with events spread over four days: paid,
// failed, paid the wrong amount, expired, expired and never known to the
// service, paid late, pending and untracked.
func dashboardLedger(t *testing.T) reconcile.Store {
	t.Helper()
	ctx := apiContext(t)
	s := sandbox.Start(t)
	st := reconcile.NewMemoryStore()
	sw, err := reconcile.New(s.Client(), st, func(context.Context, reconcile.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	track := func(id string, amount upicollect.Money, created time.Time) {
		t.Helper()
		must("tracking "+id, sw.Track(ctx, reconcile.Order{ID: id, Amount: amount, Created: created}))
	}
	settle := func(id, result string, paise int64) {
		t.Helper()
		_, err := s.SettleWith(id, sandbox.Settlement{Result: result, PaidPaise: paise})
		must("settling "+id, err)
	}
	step := func(at time.Time) {
		t.Helper()
		_, err := sw.Step(ctx, at)
		must("stepping", err)
	}
	for _, id := range []string{"ORD-1001", "ORD-1002", "ORD-1003", "ORD-1004", "ORD-1005", "ORD-1006", "ORD-1008", "ORD-1009", "ORD-1010"} {
		createIntent(t, s, upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: id, RedirectURL: "https://shop.example/thanks",
			Note: "Order " + id, Customer: customer})
	}
	day3, day2, day1 := dashboardNow.AddDate(0, 0, -3).Add(2*time.Hour), dashboardNow.AddDate(0, 0, -2), dashboardNow.AddDate(0, 0, -1)
	track("ORD-1001", upicollect.Rupees(499), day3)
	track("ORD-1002", upicollect.Rupees(499), day3)
	track("ORD-1003", upicollect.Rupees(499), day3)
	settle("ORD-1001", sandbox.StatusSuccess, 0)
	settle("ORD-1002", sandbox.StatusReject, 0)
	settle("ORD-1003", sandbox.StatusSuccess, 0)
	step(day3.Add(time.Minute))
	track("ORD-1004", upicollect.Rupees(499), day2)
	track("ORD-1005", upicollect.Rupees(499), day2)
	settle("ORD-1004", sandbox.StatusSuccess, 0)
	settle("ORD-1005", sandbox.StatusSuccess, 45000)
	step(day2.Add(time.Minute))
	track("ORD-1006", upicollect.Rupees(1299), day1)
	track("ORD-1007", upicollect.Rupees(250), day1) // never created at the service
	track("ORD-1008", upicollect.Rupees(499), day1)
	step(day1.Add(16 * time.Minute))
	settle("ORD-1008", sandbox.StatusSuccess, 0)
	track("ORD-1009", upicollect.Rupees(499), dashboardNow.Add(-time.Minute))
	track("ORD-1010", upicollect.Rupees(499), dashboardNow.Add(-time.Minute))
	step(dashboardNow)
	must("untracking", st.Untrack(ctx, "ORD-1010"))
	return st
}

// TestDashboardInChromium opens the dashboard's overview, an order's page
// and a list at a phone's and a laptop's width: each is readable (no
// overflow, no text under 12 px, the chart's labels included), fetches
// nothing from elsewhere, and is photographed.
func TestDashboardInChromium(t *testing.T) {
	st := dashboardLedger(t)
	srv := httptest.NewServer(dashboard.New(st, dashboard.WithClock(func() time.Time { return dashboardNow })))
	t.Cleanup(srv.Close)
	browser := startBrowser(t)
	for _, vp := range []viewport{phone, laptop1366} {
		t.Run(vp.name, func(t *testing.T) {
			tb := newTab(t, browser, vp)
			open(t, tb, srv.URL+"/")
			checkPage(t, tb, srv.URL, "dashboard-overview", "Outcomes over time", "Needs a person", "Paid late", "ORD-1008", "IST")
			var labels struct {
				Shown    int     `json:"shown"`
				Smallest float64 `json:"smallest"`
				Overlaps int     `json:"overlaps"`
			}
			run(t, tb, "measuring the chart's labels", chromedp.Evaluate(`(() => {
			  const rs = [...document.querySelectorAll('svg.chart text.day')].map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
			  let overlaps = 0;
			  for (let i = 1; i < rs.length; i++) if (rs[i].left < rs[i-1].right) overlaps++;
			  const all = [...document.querySelectorAll('svg.chart text')].map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
			  return {shown: rs.length, smallest: Math.min(...all.map(r => r.height)), overlaps};
			})()`, &labels))
			if labels.Shown < 3 || labels.Smallest < 11 || labels.Overlaps > 0 {
				t.Errorf("chart labels: %d days labelled, the smallest text %.1f px high, %d overlapping: want at least 3, 11 px, none",
					labels.Shown, labels.Smallest, labels.Overlaps)
			}
			var bars int
			run(t, tb, "counting the bars", chromedp.Evaluate(`document.querySelectorAll('svg.chart rect').length`, &bars))
			if bars != 6 { // 23 Nov: paid, failed; 24 Nov: paid, mismatch; 25 Nov: expired; 26 Nov: late paid
				t.Errorf("the chart draws %d bar segments, want 6", bars)
			}

			open(t, tb, srv.URL+"/orders/ORD-1008")
			checkPage(t, tb, srv.URL, "dashboard-order", "ORD-1008", "late paid", "expired", "₹499.00", "25 Nov 2026, 10:16:00 IST")
			open(t, tb, srv.URL+"/orders?state=expired")
			checkPage(t, tb, srv.URL, "dashboard-list", "ORD-1006", "ORD-1007")
		})
	}
}

// TestDashboardNumbersAreTheLedgers reads the numbers a person sees on the
// overview (the cards' counts and the chart's legend) and compares them
// with the ledger's Counts and events.
func TestDashboardNumbersAreTheLedgers(t *testing.T) {
	st := dashboardLedger(t)
	srv := httptest.NewServer(dashboard.New(st, dashboard.WithClock(func() time.Time { return dashboardNow })))
	t.Cleanup(srv.Close)
	ctx := apiContext(t)
	counts, err := st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orders, err := st.List(ctx, reconcile.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	events, total := map[string]int{}, 0
	for _, o := range orders {
		for _, e := range o.Events {
			events[string(e.Result)]++
		}
	}
	for _, n := range counts {
		total += n
	}

	browser := startBrowser(t)
	for _, vp := range []viewport{phone, laptop1366} {
		t.Run(vp.name, func(t *testing.T) {
			tb := newTab(t, browser, vp)
			open(t, tb, srv.URL+"/")
			var cards, legend map[string]string
			run(t, tb, "reading the numbers", chromedp.WaitVisible(`.cards`, chromedp.ByQuery),
				chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('.cards [data-state]')].map(c =>
				  [c.dataset.state, c.querySelector('.count').innerText.trim()]))`, &cards),
				chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('.legend li')].map(li =>
				  [li.querySelector('.sw').className.replace('sw r-', ''), li.querySelector('strong').innerText.trim()]))`, &legend))
			if cards["total"] != strconv.Itoa(total) {
				t.Errorf("the page shows %s orders in all, the ledger has %d", cards["total"], total)
			}
			for _, s := range dashboard.States {
				if got, want := cards[string(s)], strconv.Itoa(counts[s]); got != want {
					t.Errorf("%s: the page shows %q, the ledger counts %s", s, got, want)
				}
			}
			for _, r := range []reconcile.Result{reconcile.Paid, reconcile.Failed, reconcile.LatePaid, reconcile.Expired, reconcile.Mismatch} {
				if got, want := legend[string(r)], strconv.Itoa(events[string(r)]); got != want {
					t.Errorf("chart legend %s: the page shows %q, the ledger has %s events", r, got, want)
				}
			}
			if counts[reconcile.LatePaid] != 1 || counts[reconcile.Mismatch] != 1 || counts[reconcile.Untracked] != 1 {
				t.Errorf("the ledger is not the one the test built: %v", counts)
			}
			t.Logf("%s: page and ledger agree: %v", vp.name, cards)
		})
	}
}
