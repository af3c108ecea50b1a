package sandbox

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Order kinds, as Order.Kind reports them.
const (
	KindIntent  = "intent"
	KindRequest = "request"
	KindLink    = "link"
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
	Kind        string   `json:"kind"` // KindIntent, KindRequest or KindLink
	MID         string   `json:"mid"`
	AmountPaise int64    `json:"amount_paise"`
	Amount      string   `json:"amount"` // rupees, "499.00"
	Note        string   `json:"note"`
	Customer    Customer `json:"customer"`
	VPA         string   `json:"vpa,omitempty"`          // payment requests only
	RedirectURL string   `json:"redirect_url,omitempty"` // intents only
	Status      string   `json:"status"`                 // StatusPending, StatusSuccess, StatusFail or StatusReject
	UTR         string   `json:"utr,omitempty"`
	// PaidPaise is what the status check reports as paid once settled:
	// AmountPaise unless Settlement.PaidPaise said otherwise.
	PaidPaise int64     `json:"paid_paise,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"` // intents only
	SettledAt time.Time `json:"settled_at"`
	seq       uint64
}

// formatRupees writes paise as rupees with two decimals: 49900 -> "499.00".
func formatRupees(paise int64) string {
	return fmt.Sprintf("%d.%02d", paise/100, paise%100)
}

// rupeesNumber writes paise as the shortest JSON number in rupees: 49900 ->
// "499", 108 -> "1.08". The wire wants a number; no float is ever involved.
func rupeesNumber(paise int64) string {
	if paise%100 == 0 {
		return strconv.FormatInt(paise/100, 10)
	}
	s := formatRupees(paise)
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

// get returns a copy of the order with id.
func (st *store) get(id string) (Order, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return Order{}, false
	}
	return *o, true
}

// settle moves a PENDING order to st.Result. st.UTR is used when
// non-empty; otherwise genUTR supplies one for SUCCESS.
func (st *store) settle(id string, set Settlement, now time.Time, genUTR func() string) (Order, error) {
	result, utr := set.Result, set.UTR
	switch result {
	case StatusSuccess, StatusFail, StatusReject:
	default:
		return Order{}, ErrInvalidResult
	}
	if utr != "" && !validUTR(utr) {
		return Order{}, ErrInvalidUTR
	}
	if set.PaidPaise < 0 || set.PaidPaise > maxPaise {
		return Order{}, ErrInvalidAmount
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return Order{}, ErrOrderNotFound
	}
	if o.Status != StatusPending {
		return *o, ErrOrderSettled
	}
	// An expired intent can still be failed or rejected, but not paid.
	if result == StatusSuccess && !o.ExpiresAt.IsZero() && now.After(o.ExpiresAt) {
		return *o, ErrIntentExpired
	}
	if utr == "" && result == StatusSuccess {
		utr = genUTR()
	}
	o.Status, o.UTR, o.SettledAt, o.PaidPaise = result, utr, now, o.AmountPaise
	if set.PaidPaise != 0 {
		o.PaidPaise = set.PaidPaise
	}
	return *o, nil
}

// list returns copies of all orders in creation order.
func (st *store) list() []Order {
	st.mu.Lock()
	out := make([]Order, 0, len(st.orders))
	for _, o := range st.orders {
		out = append(out, *o)
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (st *store) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.orders)
}

// maxPaise is the service's largest amount, 100000 rupees.
const maxPaise = 100000 * 100

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
