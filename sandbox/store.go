package sandbox

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Order kinds, as Order.Kind reports them.
const (
	KindIntent  = "intent"
	KindRequest = "request"
	KindLink    = "link"
	// KindOrder is a hosted checkout (createOrderRequest).
	KindOrder = "order"
)

// Order states, as Order.Status reports them. PENDING is the only
// non-terminal one.
const (
	StatusPending = "PENDING"
	StatusSuccess = "SUCCESS"
	StatusFail    = "FAIL"
	StatusReject  = "REJECT"
)

// Errors returned by Settle, Pay and the control endpoint.
var (
	ErrOrderNotFound  = errors.New("sandbox: order not found")
	ErrOrderSettled   = errors.New("sandbox: order already settled")
	ErrInvalidResult  = errors.New("sandbox: result must be SUCCESS, FAIL or REJECT")
	ErrInvalidUTR     = errors.New("sandbox: utr must be 1 to 35 letters or digits")
	ErrIntentExpired  = errors.New("sandbox: intent expired")
	ErrInvalidAmount  = errors.New("sandbox: paid amount must be 1 paisa to 100000 rupees")
	errDuplicateOrder = errors.New("order ID already exists")
)

// Customer is the payer an order was created for.
type Customer struct {
	Name   string `json:"name"`
	Email  string `json:"email"`
	Mobile string `json:"mobile"`
}

// Order is a snapshot of one order the sandbox holds. Amounts are kept in
// paise; Amount repeats AmountPaise in rupees with two decimals for people.
type Order struct {
	OrderID     string   `json:"order_id"`
	Kind        string   `json:"kind"` // KindIntent, KindRequest, KindLink or KindOrder
	MID         string   `json:"mid"`
	AmountPaise int64    `json:"amount_paise"`
	Amount      string   `json:"amount"` // rupees, "499.00"
	Note        string   `json:"note"`
	Customer    Customer `json:"customer"`
	VPA         string   `json:"vpa,omitempty"`          // payment requests only
	RedirectURL string   `json:"redirect_url,omitempty"` // intents and order requests only
	Status      string   `json:"status"`                 // StatusPending, StatusSuccess, StatusFail or StatusReject
	UTR         string   `json:"utr,omitempty"`
	// PaidPaise is what the status check reports as paid once settled:
	// AmountPaise unless Settle's PaidAmount said otherwise.
	PaidPaise int64     `json:"paid_paise,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"` // intents only
	SettledAt time.Time `json:"settled_at"`
	// Scheduled lists the changes still to come, earliest first (Settle,
	// or the pay endpoint's after): a bank's outcome that the status check
	// reports only from its time on.
	Scheduled []ScheduledChange `json:"scheduled,omitempty"`
	seq       uint64
}

// ScheduledChange is a state change the sandbox makes at a sandbox time
// (WithClock's): what a bank reports later, such as a late authorisation
// turning FAIL into SUCCESS.
type ScheduledChange struct {
	// Result is the state the order moves to: StatusSuccess, StatusFail or
	// StatusReject.
	Result string `json:"result"`
	// At is the sandbox time the change takes effect; the order's
	// SettledAt becomes At.
	At time.Time `json:"at"`
	// UTR is the bank reference the change reports (SUCCESS only).
	UTR string `json:"utr,omitempty"`
	// PaidPaise, if non-zero, is the paid amount the status check then
	// reports (Settle's PaidAmount).
	PaidPaise int64 `json:"paid_paise,omitempty"`
}

// rupeesNumber writes paise as the shortest JSON number in rupees: 49900 ->
// "499", 108 -> "1.08". The wire wants a number; no float is ever involved.
func rupeesNumber(paise int64) string {
	if paise%100 == 0 {
		return strconv.FormatInt(paise/100, 10)
	}
	s := vocab.FormatRupees(paise)
	if s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s
}

// store holds the orders of the server's merchant. One mutex guards it all:
// the sandbox favours obviously-correct over fast.
type store struct {
	mu     sync.Mutex
	orders map[string]*Order
	seq    uint64
}

func newStore() *store { return &store{orders: make(map[string]*Order)} }

// add stores o under o.OrderID unless that id exists.
func (st *store) add(o *Order) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.orders[o.OrderID]; ok {
		return errDuplicateOrder
	}
	st.seq++
	o.seq = st.seq
	st.orders[o.OrderID] = o
	return nil
}

// get returns a copy of the order with id as it stands at now.
func (st *store) get(id string, now time.Time) (Order, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o := st.at(id, now)
	if o == nil {
		return Order{}, false
	}
	return o.snapshot(), true
}

// at returns the order with id, its due changes made, or nil; st.mu is
// held.
func (st *store) at(id string, now time.Time) *Order {
	o := st.orders[id]
	if o != nil {
		applyDue(o, now)
	}
	return o
}

// snapshot is a copy of o that shares nothing with it.
func (o *Order) snapshot() Order {
	c := *o
	c.Scheduled = slices.Clone(o.Scheduled)
	return c
}

// settleNow moves a PENDING order to c.Result now (the payer's choice),
// with c.UTR when non-empty and otherwise, for SUCCESS, one from genUTR.
func (st *store) settleNow(id string, c ScheduledChange, now time.Time, genUTR func() string) (Order, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o := st.at(id, now)
	if o == nil {
		return Order{}, ErrOrderNotFound
	}
	if o.Status != StatusPending {
		return o.snapshot(), ErrOrderSettled
	}
	// An expired intent can still be failed or rejected, but not paid.
	if c.Result == StatusSuccess && expiredAt(o, now) {
		return o.snapshot(), ErrIntentExpired
	}
	if c.UTR == "" && c.Result == StatusSuccess {
		c.UTR = genUTR()
	}
	c.At = now
	apply(o, c)
	return o.snapshot(), nil
}

// checkChange refuses a result, UTR or paid amount that cannot be.
func checkChange(c ScheduledChange) error {
	switch c.Result {
	case StatusSuccess, StatusFail, StatusReject:
	default:
		return ErrInvalidResult
	}
	if c.UTR != "" && !validUTR(c.UTR) {
		return ErrInvalidUTR
	}
	if c.PaidPaise < 0 || c.PaidPaise > maxOrderPaise {
		return ErrInvalidAmount
	}
	return nil
}

// schedule adds c to the order's coming changes, refusing one that the
// order's states up to then would not allow (ErrOrderSettled) and a
// payment of an intent that expired unpaid before now (ErrIntentExpired:
// the payer can no longer start it). A c.At not after now takes effect
// at once, at now.
func (st *store) schedule(id string, c ScheduledChange, now time.Time) (Order, error) {
	if c.At.Before(now) {
		c.At = now
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	o := st.at(id, now)
	if o == nil {
		return Order{}, ErrOrderNotFound
	}
	// Stable: changes at one time apply in the order they were scheduled.
	i := sort.Search(len(o.Scheduled), func(i int) bool { return o.Scheduled[i].At.After(c.At) })
	plan := slices.Insert(slices.Clone(o.Scheduled), i, c)
	state := o.Status
	for j, p := range plan {
		if j == i && p.Result == StatusSuccess && state == StatusPending && expiredAt(o, now) {
			return o.snapshot(), ErrIntentExpired
		}
		if !allowedChange(state, p.Result) {
			return o.snapshot(), ErrOrderSettled
		}
		state = p.Result
	}
	o.Scheduled = plan
	applyDue(o, now)
	return o.snapshot(), nil
}

// allowedChange reports whether an order may move from one state to
// another: PENDING to any final state, and FAIL or REJECT to SUCCESS (a
// bank's late authorisation). SUCCESS is final.
func allowedChange(from, to string) bool {
	switch from {
	case StatusPending:
		return to == StatusSuccess || to == StatusFail || to == StatusReject
	case StatusFail, StatusReject:
		return to == StatusSuccess
	}
	return false
}

// applyDue makes the scheduled changes whose time has come, in order. One
// that is no longer allowed (the order was settled by hand since it was
// scheduled) is dropped.
func applyDue(o *Order, now time.Time) {
	n := 0
	for n < len(o.Scheduled) && !o.Scheduled[n].At.After(now) {
		if c := o.Scheduled[n]; allowedChange(o.Status, c.Result) {
			apply(o, c)
		}
		n++
	}
	if n > 0 {
		o.Scheduled = slices.Delete(o.Scheduled, 0, n)
		if len(o.Scheduled) == 0 {
			o.Scheduled = nil
		}
	}
}

// apply moves o to c's state at c's time.
func apply(o *Order, c ScheduledChange) {
	o.Status, o.SettledAt = c.Result, c.At
	if c.UTR != "" || c.Result == StatusSuccess {
		o.UTR = c.UTR
	}
	if c.PaidPaise != 0 {
		o.PaidPaise = c.PaidPaise
	} else if o.PaidPaise == 0 {
		o.PaidPaise = o.AmountPaise
	}
}

// expiredAt reports whether o is an intent past its expiry at now.
func expiredAt(o *Order, now time.Time) bool {
	return !o.ExpiresAt.IsZero() && now.After(o.ExpiresAt)
}

// list returns copies of all orders as they stand at now, in creation
// order.
func (st *store) list(now time.Time) []Order {
	st.mu.Lock()
	out := make([]Order, 0, len(st.orders))
	for _, o := range st.orders {
		applyDue(o, now)
		out = append(out, o.snapshot())
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// maxOrderPaise is the largest amount the service takes for an order,
// 100000 rupees; a settlement may not report more paid either.
const maxOrderPaise = 100000 * 100

// validUTR accepts what banks use as a reference: letters and digits, at most 35.
func validUTR(s string) bool {
	if len(s) > 35 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return true
}
