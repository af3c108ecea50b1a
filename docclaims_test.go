package upicollect_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// faultsMark opens the list of an operation's doc comment that says, fault
// by fault, how many attempts the call makes with the default RetryPolicy
// and which sentinels its error then matches. TestDocFaultClaims holds the
// code to it.
const faultsMark = "Faults, with the default RetryPolicy:"

// documentedFaults are the faults every operation's list must cover: the
// answers whose meaning differs by code or by operation, and a connection
// reset after the request went out.
var documentedFaults = []string{"400", "401", "403", "409", "429", "500", "501", "502", "503", "504", "505", "reset"}

// claim is one fault of an operation's list.
type claim struct {
	attempts  int
	sentinels []string // names, sorted
}

// claimLine reads "  - 500, 502, 503 and 504: 3 attempts, then ErrServer and
// ErrOutcomeUnknown" or "  - a connection reset: 3 attempts, then no
// sentinel ...".
var claimLine = regexp.MustCompile(`^\s+- (.+?): (\d+) attempts?, then (.+)$`)

// docClaims parses the faults list of each Client method's doc comment in
// the package's source, by method name.
func docClaims(t *testing.T) map[string]map[string]claim {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.ParseComments)
	require.NoError(t, err)
	pkg := pkgs["upicollect"]
	require.NotNil(t, pkg)
	out := map[string]map[string]claim{}
	for name, f := range pkg.Files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Doc == nil {
				continue
			}
			text := fn.Doc.Text()
			_, list, found := strings.Cut(text, faultsMark+"\n")
			if !found {
				continue
			}
			claims := map[string]claim{}
			for _, line := range strings.Split(list, "\n") {
				m := claimLine.FindStringSubmatch(line)
				if m == nil {
					break // the list ends at its first other line
				}
				n, _ := strconv.Atoi(m[2])
				c := claim{attempts: n, sentinels: regexp.MustCompile(`Err[A-Za-z]+`).FindAllString(m[3], -1)}
				slices.Sort(c.sentinels)
				if c.sentinels == nil {
					require.True(t, strings.HasPrefix(m[3], "no sentinel"), "%s: %q names no sentinel; say so", fn.Name.Name, line)
					c.sentinels = []string{}
				}
				for _, f := range faultsOf(m[1]) {
					require.NotContains(t, claims, f, "%s: fault %s listed twice", fn.Name.Name, f)
					claims[f] = c
				}
			}
			out[fn.Name.Name] = claims
		}
	}
	return out
}

// faultsOf reads "500, 502, 503 and 504" or "a connection reset".
func faultsOf(s string) []string {
	if s == "a connection reset" {
		return []string{"reset"}
	}
	return regexp.MustCompile(`\d{3}`).FindAllString(s, -1)
}

// docOps are the operations whose doc comments carry a faults list, with a
// call of each as a merchant makes it.
var docOps = map[string]func(context.Context, *upicollect.Client) error{
	"CheckPaymentStatus": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.CheckPaymentStatus(ctx, testStatusOrder)
		return err
	},
	"CreatePaymentIntent": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.CreatePaymentIntent(ctx, validInput().intent())
		return err
	},
	"CreatePaymentRequest": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.CreatePaymentRequest(ctx, validInput().request())
		return err
	},
	"CreatePaymentLink": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.CreatePaymentLink(ctx, validInput().link())
		return err
	},
	"CreateOrderRequest": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.CreateOrderRequest(ctx, orderParams())
		return err
	},
	"Do": func(ctx context.Context, c *upicollect.Client) error {
		_, err := c.Do(ctx, "/v1/payments/refund", url.Values{"order_id": {"ORD-1"}}, nil)
		return err
	},
}

// faultHandler answers every request with the fault: an error envelope
// with the status code, or a reset connection.
func faultHandler(t *testing.T, fault string) handlerFunc {
	if fault == "reset" {
		return func(w http.ResponseWriter, _ *http.Request, _ int) { resetConn(t, w) }
	}
	code, err := strconv.Atoi(fault)
	require.NoError(t, err)
	body := fmt.Sprintf(`{"status":false,"statusCode":%d,"msg":"fault %d"}`, code, code)
	return always(code, []byte(body))
}

// TestDocFaultClaims: every operation's doc comment lists, for every
// documented fault, the attempts the call makes with the default
// RetryPolicy and exactly the sentinels its error matches, and the code
// does what the list says, fault by fault.
func TestDocFaultClaims(t *testing.T) {
	claims := docClaims(t)
	for op, call := range docOps {
		t.Run(op, func(t *testing.T) {
			got, ok := claims[op]
			require.True(t, ok, "%s's doc comment has no %q list", op, faultsMark)
			for _, f := range documentedFaults {
				assert.Contains(t, got, f, "%s's list says nothing of %s", op, f)
			}
			for fault, want := range got {
				t.Run(fault, func(t *testing.T) {
					srv := newTestServer(t, faultHandler(t, fault))
					c, _ := newClient(t, srv.BaseURL())
					err := call(context.Background(), c)
					require.Error(t, err)
					assert.Equal(t, want.attempts, srv.Count(), "attempts")
					assert.Equal(t, want.sentinels, sorted(matchedSentinels(err)), "errors.Is of %v", err)
				})
			}
		})
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

// reliabilityGuide is the guide whose fault table TestDocsReliabilityFaultClaims
// holds to the operations' doc comments.
const reliabilityGuide = "docs/reliability.md"

// guideClaims parses the fault table of the reliability guide's Retries
// section: by operation (each named in a column's header), by fault. A
// cell's parenthetical is a remark, not a claim.
func guideClaims(t *testing.T) map[string]map[string]claim {
	t.Helper()
	b, err := os.ReadFile(reliabilityGuide)
	require.NoError(t, err)
	_, section, found := strings.Cut(string(b), "\n## Retries\n")
	require.True(t, found, "%s has no Retries section", reliabilityGuide)
	section, _, _ = strings.Cut(section, "\n## ")
	_, table, found := strings.Cut(section, "\n| fault |")
	require.True(t, found, "%s's Retries section has no fault table", reliabilityGuide)
	lines := strings.Split("| fault |"+table, "\n")
	cells := func(line string) []string {
		c := strings.Split(strings.Trim(line, "| "), "|")
		for i := range c {
			c[i] = strings.TrimSpace(strings.ReplaceAll(c[i], "`", ""))
		}
		return c
	}
	header := cells(lines[0])
	out := map[string]map[string]claim{}
	remark := regexp.MustCompile(`\s*\([^)]*\)`)
	for _, line := range lines[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		row := cells(line)
		require.Len(t, row, len(header), "%s fault table row %q", reliabilityGuide, line)
		for i, cell := range row[1:] {
			m := regexp.MustCompile(`^(\d+) attempts?, then (.+)$`).FindStringSubmatch(remark.ReplaceAllString(cell, ""))
			require.NotNil(t, m, "%s fault table cell %q", reliabilityGuide, cell)
			n, _ := strconv.Atoi(m[1])
			c := claim{attempts: n, sentinels: regexp.MustCompile(`Err[A-Za-z]+`).FindAllString(m[2], -1)}
			if c.sentinels == nil {
				require.True(t, strings.HasPrefix(m[2], "no sentinel"), "%s cell %q names no sentinel; say so", reliabilityGuide, cell)
				c.sentinels = []string{}
			}
			slices.Sort(c.sentinels)
			for _, op := range strings.Split(header[i+1], ", ") {
				if out[op] == nil {
					out[op] = map[string]claim{}
				}
				for _, f := range faultsOf(row[0]) {
					out[op][f] = c
				}
			}
		}
	}
	return out
}

// TestDocsReliabilityFaultClaims: the reliability guide's fault table names
// every operation of docOps and every documented fault, and says for each
// what the operation's doc comment says, which TestDocFaultClaims holds to
// the code.
func TestDocsReliabilityFaultClaims(t *testing.T) {
	guide, docs := guideClaims(t), docClaims(t)
	for op := range docOps {
		got, ok := guide[op]
		if !assert.True(t, ok, "%s's fault table has no column for %s", reliabilityGuide, op) {
			continue
		}
		assert.Equal(t, docs[op], got, "%s's fault table and %s's doc comment", reliabilityGuide, op)
	}
	assert.Len(t, guide, len(docOps), "%s's fault table names an operation docOps does not call", reliabilityGuide)
}
