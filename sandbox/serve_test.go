package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// serveCreds are the merchant's credentials the tests serve with.
var serveCreds = upicollect.Credentials{MID: "TESTMID1", PublicKey: "pk_test_cli", SecretKey: "sk_test_cli_0123456789"}

// serveTimeout bounds every wait of the Serve tests.
const serveTimeout = 30 * time.Second

// lockedBuffer is a bytes.Buffer that a server's goroutines may write
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServeConfigFlags: AddFlags binds every field but the credentials,
// with the config's values as defaults; repeatable flags append.
func TestServeConfigFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want *ServeConfig
	}{
		{"defaults", nil, &ServeConfig{Addr: DefaultAddr, IntentTTL: DefaultIntentTTL}},
		{"every flag", []string{"--addr", "127.0.0.1:0", "--public-url", "https://pay.example",
			"--variant", "status-in-data", "--variant", "string-amounts", "--fault", "status=500", "-fault", "latency=1s",
			"--strict", "--quiet", "--intent-ttl", "7m", "--latency", "20ms", "--rate-limit", "2.5"},
			&ServeConfig{Addr: "127.0.0.1:0", PublicURL: "https://pay.example",
				Variants: []string{"status-in-data", "string-amounts"}, Faults: []string{"status=500", "latency=1s"},
				Strict: true, Quiet: true, IntentTTL: 7 * time.Minute, Latency: 20 * time.Millisecond, RateLimit: 2.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewServeConfig()
			fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
			c.AddFlags(fs)
			require.NoError(t, fs.Parse(tt.args))
			assert.Equal(t, tt.want, c)
		})
	}

	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	NewServeConfig().AddFlags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	assert.ElementsMatch(t, []string{"addr", "public-url", "variant", "fault", "strict", "intent-ttl", "quiet", "latency", "rate-limit"}, names)
	assert.Equal(t, "127.0.0.1:8787", fs.Lookup("addr").DefValue)
	assert.Equal(t, "5m0s", fs.Lookup("intent-ttl").DefValue)
	assert.Equal(t, "", fs.Lookup("variant").DefValue, "a repeatable flag starts empty")
}

// serveOptions is a sandbox on loopback served with c's options.
func serveOptions(t *testing.T, c *ServeConfig, logs io.Writer) *Server {
	t.Helper()
	c.Credentials = serveCreds
	opts, err := c.Options(slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	s, err := Listen("127.0.0.1:0", opts...)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// TestServeConfigOptions: each field becomes the sandbox behaviour it
// names: the credentials, the faults in order, Strict, RateLimit, Quiet,
// the variants, and a clock that can be moved.
func TestServeConfigOptions(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		logs := &lockedBuffer{}
		s := serveOptions(t, NewServeConfig(), logs)
		assert.Equal(t, serveCreds, s.Credentials())
		for i := 0; i < 5; i++ {
			assert.Equal(t, http.StatusOK, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "bogus", "1")).code, "no quota, unknown fields pass")
		}
		assert.Contains(t, logs.String(), "msg=request")
		a := clockPost(t, s, `{"advance":"1h"}`, nil)
		assert.Equal(t, http.StatusOK, a.code, "the clock moves: %s", a.body)
	})
	t.Run("faults in order", func(t *testing.T) {
		c := NewServeConfig()
		c.Quiet, c.Faults = true, []string{"op=createPaymentIntent,status=503,times=1", "op=createPaymentIntent,status=500,times=1"}
		s := serveOptions(t, c, io.Discard)
		assert.Equal(t, http.StatusServiceUnavailable, call(t, s, OpCreatePaymentIntent, intentForm(s)).code)
		assert.Equal(t, http.StatusInternalServerError, call(t, s, OpCreatePaymentIntent, intentForm(s)).code)
		assert.Equal(t, http.StatusOK, call(t, s, OpCreatePaymentIntent, intentForm(s)).code)
	})
	t.Run("bad fault", func(t *testing.T) {
		c := NewServeConfig()
		c.Faults = []string{"status=500", "times=x"}
		opts, err := c.Options(slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.Error(t, err)
		assert.Nil(t, opts)
	})
	t.Run("strict and quiet", func(t *testing.T) {
		logs := &lockedBuffer{}
		c := NewServeConfig()
		c.Strict, c.Quiet = true, true
		s := serveOptions(t, c, logs)
		assert.Equal(t, http.StatusBadRequest, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "bogus", "1")).code)
		assert.Equal(t, http.StatusOK, call(t, s, OpCreatePaymentIntent, intentForm(s)).code)
		assert.Empty(t, logs.String(), "Quiet logs nothing per request")
	})
	t.Run("rate limit", func(t *testing.T) {
		// One request in 1000 s: the bucket's few tokens never refill
		// within the test.
		c := NewServeConfig()
		c.Quiet, c.RateLimit = true, 0.001
		s := serveOptions(t, c, io.Discard)
		var limited int
		for i := 0; i < 5; i++ {
			if call(t, s, OpCreatePaymentIntent, intentForm(s)).code == http.StatusTooManyRequests {
				limited++
			}
		}
		assert.Equal(t, 3, limited, "two tokens, then 429s")
	})
	t.Run("variants, TTL, latency and public URL", func(t *testing.T) {
		c := NewServeConfig()
		c.Quiet, c.Variants, c.IntentTTL, c.PublicURL = true, []string{VariantStatusInData}, 7*time.Minute, "https://pay.example"
		s := serveOptions(t, c, io.Discard)
		var on []string
		for _, v := range s.variantSet().list() {
			if v.Enabled {
				on = append(on, v.Name)
			}
		}
		assert.Equal(t, []string{VariantStatusInData}, on)
		assert.Equal(t, 7*time.Minute, s.cfg.intentTTL)
		assert.Equal(t, "https://pay.example", s.cfg.publicURL)
		assert.Zero(t, s.cfg.latency)
		c.Latency = 20 * time.Millisecond
		assert.Equal(t, 20*time.Millisecond, serveOptions(t, c, io.Discard).cfg.latency)
	})
}

// serving is a Serve running in the background.
type serving struct {
	info   Info
	logs   *lockedBuffer
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve returned, with err
	err    error
}

// startServe runs Serve with c and reads its JSON line; every wait is
// bounded.
func startServe(t *testing.T, c *ServeConfig) *serving {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	sv := &serving{logs: &lockedBuffer{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		sv.err = Serve(ctx, c, pw, sv.logs)
		_ = pw.Close()
		close(sv.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-sv.done:
		case <-time.After(serveTimeout):
			t.Error("Serve did not return")
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		require.NoError(t, json.Unmarshal([]byte(line), &sv.info), "line %q, logs: %s", line, sv.logs.String())
		require.Equal(t, byte('\n'), line[len(line)-1])
	case <-sv.done:
		t.Fatalf("Serve ended: %v: %s", sv.err, sv.logs.String())
	case <-time.After(serveTimeout):
		t.Fatal("no JSON line")
	}
	return sv
}

// TestServe: one JSON line says where and with which keys, the API
// answers with them, the clock moves, logs go to stderr without the
// secret, and the end of ctx stops it with nil.
func TestServe(t *testing.T) {
	c := NewServeConfig()
	c.Addr, c.Credentials = "127.0.0.1:0", serveCreds
	sv := startServe(t, c)
	assert.Equal(t, Info{BaseURL: sv.info.BaseURL, MID: serveCreds.MID, PublicKey: serveCreds.PublicKey, SecretKey: serveCreds.SecretKey}, sv.info)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, sv.info.BaseURL)

	client, err := upicollect.NewClient(serveCreds, upicollect.WithBaseURL(sv.info.BaseURL))
	require.NoError(t, err)
	in, err := client.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{Amount: upicollect.Rupees(5),
		RedirectURL: "https://shop.example/done", Note: "n", Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)
	assert.NotEmpty(t, in.OrderID)

	req, err := http.NewRequest(http.MethodPost, sv.info.BaseURL+clockPath, bytes.NewReader([]byte(`{"advance":"1h"}`)))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the clock is movable")

	sv.cancel()
	select {
	case <-sv.done:
	case <-time.After(serveTimeout):
		t.Fatal("Serve did not stop")
	}
	require.NoError(t, sv.err)
	logs := sv.logs.String()
	for _, want := range []string{
		"msg=\"sandbox serving\"",
		"api_base_url=" + sv.info.BaseURL + " ",
		"order_list_page=" + sv.info.BaseURL + "/ ",
		"orders_json=" + sv.info.BaseURL + "/sandbox/orders ",
		"pay_endpoint=" + sv.info.BaseURL + "/sandbox/orders/{order_id}/pay ",
		"variants_endpoint=" + sv.info.BaseURL + "/sandbox/variants ",
		"faults_endpoint=" + sv.info.BaseURL + "/sandbox/faults ",
		"clock_endpoint=" + sv.info.BaseURL + "/sandbox/clock\n",
		"msg=request",
		"msg=\"sandbox stopped\"",
	} {
		assert.Contains(t, logs, want)
	}
	assert.NotContains(t, logs, serveCreds.SecretKey)
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout is closed") }

// TestServeRefusals: a configuration the sandbox refuses is a
// *ConfigError; a busy address or a stdout that cannot be written is not.
// Nothing is printed on stdout.
func TestServeRefusals(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()

	tests := []struct {
		name   string
		edit   func(*ServeConfig)
		stdout io.Writer
		config bool // a *ConfigError
		msg    string
	}{
		{"unknown variant", func(c *ServeConfig) { c.Variants = []string{"nope"} }, nil, true, `unknown variant "nope"`},
		{"bad fault", func(c *ServeConfig) { c.Faults = []string{"times=x"} }, nil, true, "times"},
		{"bad rate", func(c *ServeConfig) { c.RateLimit = -1 }, nil, true, "WithRateLimit"},
		{"bad public URL", func(c *ServeConfig) { c.PublicURL = "ftp://x" }, nil, true, "WithPublicURL"},
		{"address in use", func(c *ServeConfig) { c.Addr = busy.Addr().String() }, nil, false, "address already in use"},
		{"stdout closed", func(*ServeConfig) {}, failingWriter{}, false, "stdout is closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout := tt.stdout
			if stdout == nil {
				stdout = &bytes.Buffer{}
			}
			c := NewServeConfig()
			c.Addr, c.Quiet = "127.0.0.1:0", true
			tt.edit(c)
			// Ended already: a sandbox that serves after all stops at once.
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			err := Serve(ended, c, stdout, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			var ce *ConfigError
			assert.Equal(t, tt.config, errors.As(err, &ce))
			if tt.config {
				assert.Equal(t, ce.Err, errors.Unwrap(err))
			}
			if b, ok := stdout.(*bytes.Buffer); ok {
				assert.Empty(t, b.String())
			}
		})
	}
}
