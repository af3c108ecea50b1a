package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/loopback"
)

// The values of reconcile run's --clock.
const (
	clockAuto    = "auto"    // the sandbox's, when the base URL serves one on loopback; else local
	clockSandbox = "sandbox" // the sandbox's; an error when the base URL serves none
	clockLocal   = "local"   // this machine's (a store with a clock of its own keeps its own)
)

// sandboxClockTimeout bounds one read of a sandbox's clock.
const sandboxClockTimeout = 2 * time.Second

// sandboxClock is the time of a sandbox (GET BASE/sandbox/clock): a
// sweeper run against `upicollect sandbox` steps on it, so that
// `upicollect sandbox advance 3h` brings a late payment's check due.
type sandboxClock struct {
	ctx    context.Context
	url    string
	client *http.Client

	mu   sync.Mutex
	last time.Time // the sandbox's time at the last read
	at   time.Time // this machine's (monotonic) time then
}

// newSandboxClock reads the clock of the sandbox at base once: an error
// when base is not on loopback or serves no sandbox clock.
func newSandboxClock(ctx context.Context, base string) (*sandboxClock, error) {
	u, err := url.Parse(base)
	if err != nil || !loopback.Host(u.Hostname()) {
		return nil, fmt.Errorf("%s is no sandbox on this machine (a sandbox's base URL is on loopback)", base)
	}
	c := &sandboxClock{ctx: ctx, url: strings.TrimSuffix(base, "/") + "/sandbox/clock",
		client: &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: sandboxClockTimeout}}
	t, err := c.read()
	if err != nil {
		c.client.CloseIdleConnections()
		return nil, err
	}
	c.last, c.at = t, time.Now()
	return c, nil
}

// read asks the sandbox its time.
func (c *sandboxClock) read() (time.Time, error) {
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return time.Time{}, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the sandbox's clock: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("reading the sandbox's clock: GET %s answered %s", c.url, resp.Status)
	}
	var body struct {
		Now string `json:"now"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&body); err != nil {
		return time.Time{}, fmt.Errorf("reading the sandbox's clock: %w", err)
	}
	t, err := time.Parse(time.RFC3339Nano, body.Now)
	if err != nil {
		return time.Time{}, errors.New("reading the sandbox's clock: its answer holds no time")
	}
	return t.UTC(), nil
}

// Now is the sandbox's time. When the sandbox does not answer, it is the
// last time read, moved on by this machine's time since: never backwards.
func (c *sandboxClock) Now() time.Time {
	t, err := c.read()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || t.Before(c.last) {
		return c.last.Add(time.Since(c.at))
	}
	c.last, c.at = t, time.Now()
	return t
}

// close drops the clock's idle connections.
func (c *sandboxClock) close() { c.client.CloseIdleConnections() }

// pickClock resolves --clock for a sweeper against the service at base:
// the sandbox's clock, or nil for this machine's.
func pickClock(ctx context.Context, mode, base string) (*sandboxClock, error) {
	switch mode {
	case clockLocal:
		return nil, nil
	case clockSandbox:
		return newSandboxClock(ctx, base)
	case clockAuto, "":
		c, err := newSandboxClock(ctx, base)
		if err != nil {
			return nil, nil // not a sandbox: this machine's clock
		}
		return c, nil
	}
	return nil, fmt.Errorf("--clock %q: want auto, sandbox or local", mode)
}
