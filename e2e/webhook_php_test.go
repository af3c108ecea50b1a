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

// webhookSecret signs the live deliveries to the PHP receiver.
var webhookSecret = []byte("whsec_5ecr3t_n0t_f0r_l0gs_7f3a9c")

// webhookCtx bounds a test's waits on php.
func webhookCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// phpReceiver returns the path of php and of the README's PHP receiver,
// written to a file. Without php the test skips, but under CI=true it
// fails: .ci/run installs php-cli.
func phpReceiver(t *testing.T) (php, script string) {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("php is not installed (apt-get install php-cli): the README's PHP receiver is tested in CI")
		}
		t.Skip("php is not installed (apt-get install php-cli)")
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	block := readmeBlock(t, string(readme), "## Webhooks for every shop", "php")
	require.Contains(t, block, "function upicollect_verify(")
	script = filepath.Join(t.TempDir(), "upicollect-webhook.php")
	require.NoError(t, os.WriteFile(script, []byte(block), 0o644))
	return php, script
}

// readmeBlock returns the first fenced block of lang in the README's
// section that starts with heading.
func readmeBlock(t *testing.T, readme, heading, lang string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "the README has no section %q", heading)
	section := readme[i+1:]
	if end := strings.Index(section[len(heading):], "\n## "); end >= 0 {
		section = section[:len(heading)+end]
	}
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```\n").FindStringSubmatch(section)
	require.NotNil(t, m, "the README's section %q has no %s block", heading, lang)
	return m[1] + "\n"
}

// TestPHPReceiverVectors runs the README's PHP receiver over the test
// vectors: it reaches every verdict the file gives.
func TestPHPReceiverVectors(t *testing.T) {
	php, script := phpReceiver(t)
	ctx := webhookCtx(t)
	out, err := exec.CommandContext(ctx, php, "testdata/check_vectors.php", script, webhookVectors).CombinedOutput()
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

// TestPHPReceiverLive serves the README's PHP receiver with php -S on
// loopback and delivers to it with Sender: a genuine delivery is accepted
// (204) and decoded, one signed with another secret or too long ago is
// refused (400).
func TestPHPReceiverLive(t *testing.T) {
	php, script := phpReceiver(t)
	ctx := webhookCtx(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	cmd := exec.CommandContext(ctx, php, "-S", addr, script)
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
		for range lines { // until php's stderr closes
		}
		_ = cmd.Wait()
	})
	waitLine := func(what string, match func(string) bool) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "php ended before %s", what)
				if match(l) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("php never logged %s", what)
			}
		}
	}
	waitLine("that it started", func(l string) bool { return strings.Contains(l, "("+"http://"+addr+") started") })

	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	client := &http.Client{Transport: transport}
	now := time.Now() // php's clock is the wall clock: its time() is compared with t
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
