package main

import (
	"fmt"
	"strings"
)

// harness is what a Go fragment of the documentation assumes: the package,
// imports and names around it. Its files are one package of their own.
type harness struct {
	doc   string // for the error naming the harnesses, and CONTRIBUTING.md
	test  bool   // the package is a test, run with go test
	files func(b block) map[string]string
}

// harnesses are the fragments' surroundings, by the name a
// <!-- harness: NAME --> comment gives.
var harnesses = map[string]harness{
	// Statements in the body of a function returning error, with the names
	// a merchant's handler has at hand.
	"func": {
		doc: "statements in `func(ctx, client, w, r, orderID, orderIDs, params, err, db, sweeper, amount) error`: a handler's names, and fulfil/holdForReview/showThanks/showWaiting",
		files: func(b block) map[string]string {
			return map[string]string{"main.go": funcHarness(b)}
		},
	},
	// Top-level declarations with their own imports.
	"file": {
		doc: "top-level declarations of package main, with their own imports",
		files: func(b block) map[string]string {
			return map[string]string{"main.go": "package main\n\n" + lineDirective(b) + b.text + "\nfunc main() {}\n"}
		},
	},
	// Top-level declarations of a test file, run with go test.
	"test": {
		doc:  "top-level declarations of a _test.go file with `params`, a valid *IntentParams (run with go test)",
		test: true,
		files: func(b block) map[string]string {
			return map[string]string{"doc.go": "package blocks\n", "block_test.go": testHarness(b, "")}
		},
	},
	// The merchant's shop of "Testing your own code": the block declares
	// Payments and the tests; the shop and a stub are the harness's.
	"shop": {
		doc:  "a _test.go file with NewShop(Payments, baseURL), stubPayments{}, baseURL and checkout(t, shop) (run with go test)",
		test: true,
		files: func(b block) map[string]string {
			return map[string]string{"doc.go": "package blocks\n", "block_test.go": testHarness(b, shopHarness)}
		},
	},
}

// imports every statement harness offers, each used once so that a
// fragment that needs none of them still compiles.
var funcImports = []struct{ path, use string }{
	{"context", "context.Background"},
	{"database/sql", "sql.Open"},
	{"errors", "errors.Is"},
	{"fmt", "fmt.Println"},
	{"log", "log.Print"},
	{"net/http", "http.Redirect"},
	{"os", "os.Getenv"},
	{"slices", "slices.Values[[]string]"},
	{"time", "time.Now"},
	{"github.com/upicollect/upicollect-go", "upicollect.NewOrderID"},
	{"github.com/upicollect/upicollect-go/reconcile", "reconcile.New"},
	{"github.com/upicollect/upicollect-go/reconcile/sqlstore", "sqlstore.New"},
	{"github.com/upicollect/upicollect-go/upilink", "upilink.Parse"},
}

func funcHarness(b block) string {
	var s strings.Builder
	s.WriteString("package main\n\nimport (\n")
	for _, im := range funcImports {
		fmt.Fprintf(&s, "\t%q\n", im.path)
	}
	s.WriteString(")\n\nvar (\n")
	for _, im := range funcImports {
		fmt.Fprintf(&s, "\t_ = %s\n", im.use)
	}
	s.WriteString(`)

func main() {}

// fulfil and holdForReview are the merchant's own.
func fulfil(ctx context.Context, orderID string) error { return nil }

func holdForReview(ctx context.Context, orderID string, paid upicollect.Money) error { return nil }

// showThanks and showWaiting are the merchant's return page.
func showThanks(w http.ResponseWriter, utr string) {}

func showWaiting(w http.ResponseWriter) {}

func fragment(ctx context.Context, client *upicollect.Client, w http.ResponseWriter, r *http.Request,
	orderID string, orderIDs []string, params *upicollect.IntentParams, err error,
	db *sql.DB, sweeper *reconcile.Sweeper, amount upicollect.Money) error {
	{ // the fragment's own scope: it may declare the names above again
`)
	s.WriteString(lineDirective(b))
	s.WriteString(b.text)
	s.WriteString("//line harness:1\n\t}\n\treturn nil\n}\n")
	return s.String()
}

func testHarness(b block, extra string) string {
	return `package blocks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

var (
	_ = context.Background
	_ = require.NoError
	_ = sandbox.Start
	_ testing.TB
)

// params is a valid intent.
var params = &upicollect.IntentParams{
	Amount:      upicollect.Rupees(499),
	Note:        "Order 1042",
	RedirectURL: "https://shop.example.com/thanks",
	Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
}
` + extra + "\n" + lineDirective(b) + b.text
}

const shopHarness = `
const baseURL = "https://shop.example.com"

// Shop is the merchant's code under test: it depends on Payments only.
type Shop struct{ payments Payments }

func NewShop(p Payments, baseURL string) *Shop { return &Shop{payments: p} }

// stubPayments answers every order as paid.
type stubPayments struct{}

func (stubPayments) CreateOrderRequest(_ context.Context, p *upicollect.OrderRequestParams) (*upicollect.OrderRequest, error) {
	return &upicollect.OrderRequest{OrderID: p.OrderID, PaymentURL: "https://pay.example.com/" + p.OrderID}, nil
}

func (stubPayments) CheckPaymentStatus(_ context.Context, orderID string) (*upicollect.PaymentStatus, error) {
	return &upicollect.PaymentStatus{OrderID: orderID, TxnStatus: upicollect.TxnSuccess}, nil
}

// checkout runs one checkout through the shop's Payments.
func checkout(t *testing.T, s *Shop) {
	ctx := context.Background()
	or, err := s.payments.CreateOrderRequest(ctx, &upicollect.OrderRequestParams{
		Amount: upicollect.Rupees(499), OrderID: upicollect.NewOrderID(), Note: "Order 1042",
		RedirectURL: baseURL + "/return",
		Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	require.NoError(t, err)
	st, err := s.payments.CheckPaymentStatus(ctx, or.OrderID)
	require.NoError(t, err)
	require.Equal(t, or.OrderID, st.OrderID)
}
`
