package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// webhookVectors is reconcile/webhook's test-vector file, which receivers in
// other languages check themselves against.
const webhookVectors = "../reconcile/webhook/testdata/webhook_vectors.json"

// webhookGuide is the guide whose receivers these tests run, as printed.
const webhookGuide = "../docs/webhooks.md"

// webhookSecret signs the live deliveries to the receivers.
var webhookSecret = []byte("whsec_5ecr3t_n0t_f0r_l0gs_7f3a9c")

// webhookCtx bounds a test's waits on an interpreter.
func webhookCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// receiver is one of the guide's receivers in another language.
type receiver struct {
	interpreter string // the command that runs it
	pkg         string // the Debian package that installs it
	heading     string // the guide's section that holds it
	lang        string // its block's language
	file        string // the file name the guide gives it
	checker     string // e2e's script that runs its check over the vectors
	// serve is the command line that serves the receiver at addr, and
	// started recognises the interpreter's line saying it listens.
	serve   func(script, addr string) []string
	started func(line, addr string) bool
}

var (
	phpReceiver = receiver{
		interpreter: "php", pkg: "php-cli",
		heading: "## A receiver in PHP", lang: "php", file: "upicollect-webhook.php",
		checker: "testdata/check_vectors.php",
		serve:   func(script, addr string) []string { return []string{"-S", addr, script} },
		started: func(l, addr string) bool { return strings.Contains(l, "(http://"+addr+") started") },
	}
	pythonReceiver = receiver{
		interpreter: "python3", pkg: "python3",
		heading: "## A receiver in Python", lang: "python", file: "upicollect_webhook.py",
		checker: "testdata/check_vectors.py",
		serve:   func(script, addr string) []string { return []string{script, addr} },
		started: func(l, addr string) bool { return strings.HasSuffix(l, "serving on http://"+addr) },
	}
)

// load returns the path of the interpreter and of the guide's receiver,
// written to a file. Without the interpreter the test skips, but under
// CI=true it fails: .ci/run installs it.
func (rc receiver) load(t *testing.T) (bin, script string) {
	t.Helper()
	bin, err := exec.LookPath(rc.interpreter)
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (apt-get install %s)", rc.interpreter, rc.pkg)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + ": docs/webhooks.md's receiver is tested in CI")
		}
		t.Skip(msg)
	}
	guide, err := os.ReadFile(webhookGuide)
	require.NoError(t, err)
	block := docBlock(t, string(guide), rc.heading, rc.lang)
	require.Contains(t, block, "upicollect_verify(")
	script = filepath.Join(t.TempDir(), rc.file)
	require.NoError(t, os.WriteFile(script, []byte(block), 0o644))
	return bin, script
}

// docBlock returns the first fenced block of lang in the guide's section
// that starts with heading.
func docBlock(t *testing.T, doc, heading, lang string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "the guide has no section %q", heading)
	section := doc[i+1:]
	if end := strings.Index(section[len(heading):], "\n## "); end >= 0 {
		section = section[:len(heading)+end]
	}
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```\n").FindStringSubmatch(section)
	require.NotNil(t, m, "the guide's section %q has no %s block", heading, lang)
	return m[1] + "\n"
}

// TestPHPReceiverVectors runs the guide's PHP receiver over the test
// vectors: it reaches every verdict the file gives.
func TestPHPReceiverVectors(t *testing.T) { testReceiverVectors(t, phpReceiver) }

// TestPythonReceiverVectors runs the guide's Python receiver over the test
// vectors: it reaches every verdict the file gives.
func TestPythonReceiverVectors(t *testing.T) { testReceiverVectors(t, pythonReceiver) }

func testReceiverVectors(t *testing.T, rc receiver) {
	bin, script := rc.load(t)
	ctx := webhookCtx(t)
	out, err := exec.CommandContext(ctx, bin, rc.checker, script, webhookVectors).CombinedOutput()
	require.NoError(t, err, "%s", out)
	raw, err := os.ReadFile(webhookVectors)
	require.NoError(t, err)
	var file struct {
		Vectors []struct {
			Name  string `json:"name"`
			Valid bool   `json:"valid"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.NotEmpty(t, file.Vectors)
	var want strings.Builder
	for _, v := range file.Vectors {
		verdict := "invalid"
		if v.Valid {
			verdict = "valid"
		}
		want.WriteString(verdict + " " + v.Name + "\n")
	}
	assert.Equal(t, want.String(), string(out))
}

// TestPHPReceiverLive serves the guide's PHP receiver with php -S on
// loopback and delivers to it with Sender.
func TestPHPReceiverLive(t *testing.T) { testReceiverLive(t, phpReceiver) }

// TestPythonReceiverLive serves the guide's Python receiver (its WSGI
// application on wsgiref) on loopback and delivers to it with Sender.
func TestPythonReceiverLive(t *testing.T) { testReceiverLive(t, pythonReceiver) }

// testReceiverLive: a genuine delivery is accepted (204) and decoded, one
// signed with another secret, too long ago or too far ahead is refused
// (400), and so is a genuinely signed body over 64 KiB. Each contested
// shape of the header (headerShapes), sent byte for byte, gets the rule's
// verdict from the receiver behind its real server and from Receive.
func testReceiverLive(t *testing.T, rc receiver) {
	bin, script := rc.load(t)
	ctx := webhookCtx(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	cmd := exec.CommandContext(ctx, bin, rc.serve(script, addr)...)
	cmd.Env = append(os.Environ(), "UPICOLLECT_WEBHOOK_SECRET="+string(webhookSecret))
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for range lines { // until the interpreter's stderr closes
		}
		_ = cmd.Wait()
	})
	waitLine := func(what string, match func(string) bool) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "%s ended before %s", rc.interpreter, what)
				if match(l) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%s never logged %s", rc.interpreter, what)
			}
		}
	}
	waitLine("that it started", func(l string) bool { return rc.started(l, addr) })

	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	client := &http.Client{Transport: transport}
	now := time.Now() // the receiver's clock is the wall clock: it compares t with it
	send := func(s []byte, at time.Time) error {
		h, err := webhook.Sender("http://"+addr+"/upicollect-webhook", s,
			webhook.WithHTTPClient(client), webhook.WithClock(func() time.Time { return at }))
		require.NoError(t, err)
		created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		return h(ctx, reconcile.NewEvent(reconcile.Order{ID: "order-1001", Amount: 49900, Created: created}, reconcile.Paid,
			&upicollect.PaymentStatus{OrderID: "order-1001", TxnStatus: upicollect.TxnSuccess, Amount: 49900, UTR: "412345678901"},
			created.Add(2*time.Minute+10*time.Second), ""))
	}
	require.NoError(t, send(webhookSecret, now))
	id := webhook.DeliveryID("order-1001", reconcile.Paid)
	waitLine("the delivery", func(l string) bool {
		return strings.HasSuffix(l, "upicollect: "+id+" paid order-1001 paid 499.00")
	})
	assert.ErrorContains(t, send([]byte("whsec_someone_else"), now), "answered 400")
	assert.ErrorContains(t, send(webhookSecret, now.Add(-time.Hour)), "answered 400")
	assert.ErrorContains(t, send(webhookSecret, now.Add(time.Hour)), "answered 400")

	// The header's contested shapes, signed now and sent byte for byte:
	// the guide's receiver, behind its real server, and Receive give the
	// verdict the rule gives.
	goAddr := goReceiver(t)
	body, err := json.Marshal(webhook.NewDelivery(reconcile.NewEvent(
		reconcile.Order{ID: "order-1002", Amount: 49900, Created: now}, reconcile.Paid,
		&upicollect.PaymentStatus{OrderID: "order-1002", TxnStatus: upicollect.TxnSuccess, Amount: 49900, UTR: "412345678902"}, now, "")))
	require.NoError(t, err)
	for _, sh := range headerShapes(now, body) {
		want := http.StatusBadRequest
		if sh.ok {
			want = http.StatusNoContent
		}
		assert.Equal(t, want, rawPost(ctx, t, addr, sh.fields, body), "%s: %s", rc.interpreter, sh.name)
		assert.Equal(t, want, rawPost(ctx, t, goAddr, sh.fields, body), "Go: %s", sh.name)
	}

	// Over 64 KiB, genuinely signed: refused unread beyond 64 KiB and a byte.
	big := []byte(strings.Repeat("x", 64<<10+1))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/upicollect-webhook", bytes.NewReader(big))
	require.NoError(t, err)
	req.Header.Set(webhook.SignatureHeader, signWebhook(now, big, webhookSecret))
	res, err := client.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
}

// signWebhook is the Upicollect-Signature of body at t under secret, as
// reconcile/webhook documents it: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">.
func signWebhook(t time.Time, body, secret []byte) string {
	mac := hmac.New(sha256.New, secret)
	fmt.Fprintf(mac, "%d.", t.Unix())
	mac.Write(body)
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(mac.Sum(nil)))
}

// shape is a request's signature fields, spelled and spaced as sent, and
// whether the rule accepts them.
type shape struct {
	name   string
	fields [][2]string // name, value
	ok     bool
}

// headerShapes are the contested shapes of the test vectors, signed at now
// over body with webhookSecret.
func headerShapes(now time.Time, body []byte) []shape {
	const h, u = "Upicollect-Signature", "Upicollect_Signature"
	good := signWebhook(now, body, webhookSecret)
	ts, v1, _ := strings.Cut(good, ",")
	mac := strings.TrimPrefix(v1, "v1=")
	forged := ts + ",v1=" + strings.Repeat("0", len(mac))
	return []shape{
		{"genuine", [][2]string{{h, good}}, true},
		{"upper-case hex", [][2]string{{h, ts + ",v1=" + strings.ToUpper(mac)}}, true},
		{"a second v1 that matches nothing", [][2]string{{h, forged + "," + v1}}, true},
		{"a second v1 that is not hex", [][2]string{{h, good + ",v1=" + mac[:62] + "zz"}}, false},
		{"spaces after the commas", [][2]string{{h, ts + ", " + v1}}, true},
		{"spaces and tabs around the items", [][2]string{{h, "\t" + ts + " ,\t" + v1 + " \t "}}, true},
		{"a space inside an item", [][2]string{{h, ts + ",v1= " + mac}}, false},
		{"two fields, the same signature", [][2]string{{h, good}, {h, good}}, false},
		{"two fields, a forged then a genuine signature", [][2]string{{h, forged}, {h, good}}, false},
		{"t in one field, v1 in the next", [][2]string{{h, ts}, {h, v1}}, true},
		{"Upicollect_Signature alone", [][2]string{{u, good}}, true},
		{"Upicollect_Signature beside Upicollect-Signature", [][2]string{{h, good}, {u, good}}, false},
		{"a forged Upicollect_Signature before a genuine Upicollect-Signature", [][2]string{{u, forged}, {h, good}}, false},
		{"a forged Upicollect_Signature after a genuine Upicollect-Signature", [][2]string{{h, good}, {u, forged}}, false},
	}
}

// goReceiver serves Receive on loopback (on the wall clock, as the
// guide's receivers) and returns its address.
func goReceiver(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := webhook.Receive(r, webhookSecret, webhook.DefaultTolerance); err != nil {
			http.Error(w, "bad delivery", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// rawPost POSTs body to addr's /upicollect-webhook with the header fields
// written exactly as given (names, order, spaces) and returns the status
// of the answer.
func rawPost(ctx context.Context, t *testing.T, addr string, fields [][2]string, body []byte) int {
	t.Helper()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		require.NoError(t, conn.SetDeadline(dl))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST /upicollect-webhook HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n", addr, len(body))
	for _, f := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", f[0], f[1])
	}
	b.WriteString("\r\n")
	b.Write(body)
	_, err = conn.Write(b.Bytes())
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}
