package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
)

const (
	// stepTimeout bounds every chromedp.Run of a test step.
	stepTimeout = 30 * time.Second
	// browserTimeout bounds a browser's whole life, start included: the
	// browser process and its tabs belong to a context derived from it.
	browserTimeout = 4 * time.Minute
)

// viewport is a screen the pages are checked on.
type viewport struct {
	name          string // in screenshot names: "390x844"
	width, height int64  // CSS pixels
	scale         float64
	mobile        bool
}

var (
	// phone is a 390x844 CSS-pixel phone at 2 device pixels per CSS pixel,
	// with touch and a mobile Chrome user agent.
	phone = viewport{"390x844", 390, 844, 2, true}
	// laptop is a 1280x800 desktop window.
	laptop = viewport{"1280x800", 1280, 800, 1, false}
	// screens are the sizes every page is checked and photographed at.
	screens = []viewport{phone, laptop}
)

// emulate sets the tab's screen to v.
func (v viewport) emulate() chromedp.Action {
	if v.mobile {
		return chromedp.Emulate(device.Info{
			Name:      "phone " + v.name,
			UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
			Width:     v.width, Height: v.height, Scale: v.scale, Mobile: true, Touch: true,
		})
	}
	return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(v.scale))
}

// browserPath finds Chromium or Chrome. Without one the test is skipped,
// unless CI=true: CI must run the browser tests (.ci/run installs chromium).
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no browser: none of /usr/bin/chromium, chromium, chromium-browser, google-chrome found " +
		"(install one: apt-get install chromium fonts-dejavu-core)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true requires the browser tests to run")
	}
	t.Skip(msg)
	return ""
}

// testLogger passes chromedp's messages to t.Logf, each distinct message
// once, until the test's cleanup, after which late messages from the
// browser's goroutines are dropped. A browser newer than the pinned
// chromedp's protocol sends values it cannot decode ("could not unmarshal
// event"): that is harmless unless a step then times out.
type testLogger struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
	seen map[string]bool
}

func (l *testLogger) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.seen[msg] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[msg] = true
	l.t.Logf("chromedp: %s (repeats not logged)", msg)
}

// startBrowser starts a headless browser with a fresh profile, closed at
// cleanup, and returns its context for newTab.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path := browserPath(t)
	logger := &testLogger{t: t}
	t.Cleanup(func() { // registered first, so it runs after the browser is gone
		logger.mu.Lock()
		logger.done = true
		logger.mu.Unlock()
	})
	profile := t.TempDir() // before the browser's cleanup, so removed after it

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-proxy-server", true), // everything is loopback
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(int(laptop.width), int(laptop.height)),
	}
	life, cancelLife := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(life, opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithLogf(logger.logf), chromedp.WithErrorf(logger.logf))
	t.Cleanup(func() {
		// Close the browser gracefully and wait for it to exit, so that it
		// no longer writes to the profile when t.TempDir removes it. A
		// killed browser's helper processes can outlive it for a moment.
		if err := chromedp.Cancel(ctx); err != nil {
			t.Logf("closing the browser: %v", err)
		}
		cancelBrowser()
		cancelAlloc()
		cancelLife()
	})
	// The first Run starts the browser, which lives as long as the context
	// of that Run: life's deadline, not a step's.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// tab is a browser tab showing a screen of size vp. It records every
// request the tab's pages make, to prove they fetch nothing from outside
// the sandbox.
type tab struct {
	context.Context
	vp  viewport
	net *netLog
}

// newTab opens a tab with screen vp, closed at cleanup.
func newTab(t *testing.T, browser context.Context, vp viewport) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{Context: ctx, vp: vp, net: &netLog{}}
	chromedp.ListenTarget(ctx, tb.net.listen)
	if err := chromedp.Run(ctx); err != nil { // the tab lives as long as this Run's context
		t.Fatalf("opening a tab: %v", err)
	}
	run(t, tb, "emulating a "+vp.name+" screen", vp.emulate())
	return tb
}

// netLog records the URLs a tab requests and the status of each answer.
type netLog struct {
	mu       sync.Mutex
	urls     []string
	statuses map[string]int64
}

func (n *netLog) listen(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		n.urls = append(n.urls, e.Request.URL)
	case *network.EventResponseReceived:
		if n.statuses == nil {
			n.statuses = map[string]int64{}
		}
		n.statuses[e.Response.URL] = e.Response.Status
	}
}

// reset forgets what was requested so far: the next page starts afresh.
func (n *netLog) reset() {
	n.mu.Lock()
	n.urls = nil
	n.mu.Unlock()
}

// outside returns the requested URLs that are neither on origin nor data:.
func (n *netLog) outside(origin string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, u := range n.urls {
		if !strings.HasPrefix(u, origin+"/") && u != origin && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

// requested returns how many requests were recorded.
func (n *netLog) requested() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.urls)
}

// status returns the HTTP status the tab got for url, 0 if none.
func (n *netLog) status(url string) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.statuses[url]
}

// run runs actions in the tab under stepTimeout, failing the test on error.
func run(t *testing.T, tab context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// open navigates the tab to link afresh: what it requests from now on is
// what checkPage judges.
func open(t *testing.T, tb *tab, link string) {
	t.Helper()
	tb.net.reset()
	run(t, tb, "opening "+link, chromedp.Navigate(link))
}

// screenshotDir is where screenshots go: E2E_SCREENSHOT_DIR, or the
// git-ignored screenshots folder of this module.
func screenshotDir() string {
	if d := os.Getenv("E2E_SCREENSHOT_DIR"); d != "" {
		return d
	}
	return "screenshots"
}

// saveScreenshot takes a full-page PNG screenshot, checks it is as wide as
// the screen in device pixels, and writes it to screenshotDir as
// name-<screen>.png.
func saveScreenshot(t *testing.T, tb *tab, name string) {
	t.Helper()
	var shot []byte
	run(t, tb, "taking a screenshot", chromedp.FullScreenshot(&shot, 100))
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	wantW, wantH := int(float64(tb.vp.width)*tb.vp.scale), int(float64(tb.vp.height)*tb.vp.scale)
	if b.Dx() != wantW {
		t.Errorf("screenshot %dx%d: want %d px wide (%d CSS px at %gx)", b.Dx(), b.Dy(), wantW, tb.vp.width, tb.vp.scale)
	}
	if b.Dy() < wantH {
		t.Errorf("screenshot %dx%d: want at least the screen's %d px high", b.Dx(), b.Dy(), wantH)
	}
	dir := screenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	p := filepath.Join(dir, name+"-"+tb.vp.name+".png")
	if err := os.WriteFile(p, shot, 0o644); err != nil {
		t.Fatalf("saving screenshot: %v", err)
	}
	t.Logf("screenshot %dx%d: %s", b.Dx(), b.Dy(), p)
}
