package upicollect

import (
	"crypto/rand"
	"encoding/base32"
	"math"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Money is an amount in paise (1 rupee = 100 paise). Amounts are never
// float64 in this SDK: a float cannot hold 1.08 exactly, and money must not
// drift.
type Money int64

// Rupees returns r whole rupees as Money. It saturates: an r whose paise
// would overflow int64 gives the largest (or smallest) Money, which is not
// a whole number of rupees and lies far outside MinAmountRupees ..
// MaxAmountRupees, so that every operation refuses it. An overflow never
// wraps round to an amount that looks valid.
func Rupees(r int64) Money {
	switch {
	case r > math.MaxInt64/100:
		return Money(math.MaxInt64)
	case r < math.MinInt64/100:
		return Money(math.MinInt64)
	}
	return Money(r * 100)
}

// Paise returns m as a count of paise.
func (m Money) Paise() int64 { return int64(m) }

// String formats m in rupees with exactly two decimals: "1.08", "499.00".
func (m Money) String() string { return vocab.FormatRupees(int64(m)) }

// wholeRupees reports m in rupees and whether it is a whole number of them.
func (m Money) wholeRupees() (int64, bool) { return int64(m) / 100, m%100 == 0 }

// TxnStatus is the state of a payment as the status check reports it. The set
// is open: values this SDK does not know are kept verbatim.
type TxnStatus string

// Known TxnStatus values. The service documents SUCCESS and PENDING; its
// official clients also handle FAIL and REJECT.
const (
	TxnSuccess TxnStatus = "SUCCESS"
	TxnPending TxnStatus = "PENDING"
	TxnFail    TxnStatus = "FAIL"
	TxnReject  TxnStatus = "REJECT"
)

// Terminal reports whether s is final: every value but PENDING and "".
// An unknown value counts as terminal, so that a waiter stops and the caller
// sees it, rather than polling forever on a state nobody expected.
func (s TxnStatus) Terminal() bool { return s != TxnPending && s != "" }

// orderIDEncoding is lower-case base32 without padding: URL-safe and free of
// characters that a merchant's systems might treat specially.
var orderIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewOrderID returns a new unique, URL-safe order id ("ord_" followed by 26
// characters: 48 bits of time for rough ordering and 80 random bits).
//
// Give each create its own id from NewOrderID and keep it with the checkout:
// a create that carries an order_id can be retried safely, because the service
// refuses a second order with the same id.
func NewOrderID() string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	if _, err := rand.Read(b[6:]); err != nil {
		// crypto/rand does not fail on supported platforms (Go 1.24+ never
		// returns an error); a failure here means the process cannot make
		// safe ids at all.
		panic("upicollect: crypto/rand failed: " + err.Error())
	}
	return "ord_" + strings.TrimRight(orderIDEncoding.EncodeToString(b[:]), "=")
}

// orderIDOrNew is the order id a create sends: the caller's, or a new one,
// so that every create is keyed (retried safely) and names its order.
func orderIDOrNew(id string) string {
	if id != "" {
		return id
	}
	return NewOrderID()
}

// Customer is the payer as the merchant knows them. All three fields are
// required by every create operation.
type Customer struct {
	Name   string
	Email  string
	Mobile string // 10 digits; spaces, hyphens and a +91, 91 or 0 prefix are removed
}
