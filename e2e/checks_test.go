package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pageFacts is what a page looks like on the tab's screen.
type pageFacts struct {
	Lang         string   `json:"lang"`
	Title        string   `json:"title"`
	Unlabelled   []string `json:"unlabelled"`   // buttons and links without a name
	InnerWidth   int      `json:"innerWidth"`   // CSS px
	ScrollWidth  int      `json:"scrollWidth"`  // of the document
	BodyWidth    int      `json:"bodyWidth"`    // scrollWidth of the body
	Outside      []string `json:"outside"`      // elements reaching past their card
	MinFontPx    float64  `json:"minFontPx"`    // smallest text with content
	MinFontText  string   `json:"minFontText"`  // and that text
	MinButtonPx  float64  `json:"minButtonPx"`  // lowest button
	MaxRight     float64  `json:"maxRight"`     // right edge of the rightmost text
	MaxRightText string   `json:"maxRightText"` // and its text
	Text         string   `json:"text"`         // main's visible text
}

const factsJS = `(() => {
  const name = el => (el.getAttribute('aria-label') || el.innerText || el.value ||
    [...el.querySelectorAll('img[alt]')].map(i => i.alt).join(' ') || '').trim();
  const unlabelled = [...document.querySelectorAll('button, a, [role=button], input[type=submit], input[type=button]')]
    .filter(el => name(el) === '').map(el => el.outerHTML.slice(0, 80));
  const outside = [];
  for (const card of document.querySelectorAll('.card')) {
    const c = card.getBoundingClientRect();
    for (const el of card.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > c.right + 0.5 || r.left < c.left - 0.5)) outside.push(el.outerHTML.slice(0, 80));
    }
  }
  let minFont = Infinity, minFontText = '', maxRight = 0, maxRightText = '';
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim() !== '');
    const r = el.getBoundingClientRect();
    if (!own || r.width === 0 || r.height === 0) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < minFont) { minFont = px; minFontText = el.textContent.trim().slice(0, 40); }
    if (r.right > maxRight) { maxRight = r.right; maxRightText = el.textContent.trim().slice(0, 40); }
  }
  let minButton = Infinity;
  for (const b of document.querySelectorAll('button')) minButton = Math.min(minButton, b.getBoundingClientRect().height);
  return {
    lang: document.documentElement.lang, title: document.title, unlabelled, outside,
    innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
    minFontPx: minFont === Infinity ? 0 : minFont, minFontText,
    minButtonPx: minButton === Infinity ? 0 : minButton,
    maxRight, maxRightText,
    text: document.querySelector('main') ? document.querySelector('main').innerText : document.body.innerText,
  };
})()`

// checkPage checks what every sandbox page must be on the tab's screen and
// saves its screenshot as name: a language, a title and named buttons and
// links; the texts in want are visible; nothing is wider than the screen or
// reaches out of its card; text is legible and buttons big enough to tap;
// and the page fetched nothing from outside origin, the sandbox's.
func checkPage(t *testing.T, tb *tab, origin, name string, want ...string) pageFacts {
	t.Helper()
	var f pageFacts
	run(t, tb, "reading the page", chromedp.WaitReady(`body`, chromedp.ByQuery), chromedp.Evaluate(factsJS, &f))
	if f.Lang == "" || strings.TrimSpace(f.Title) == "" {
		t.Errorf("%s: lang %q, title %q: want both", name, f.Lang, f.Title)
	}
	for _, u := range f.Unlabelled {
		t.Errorf("%s: a button or link has no name: %s", name, u)
	}
	for _, w := range want {
		if !strings.Contains(f.Text, w) {
			t.Errorf("%s does not show %q; its text:\n%s", name, w, f.Text)
		}
	}
	// A mobile browser zooms out to fit content wider than the screen, and
	// then innerWidth grows with it: check against the screen's width too.
	w := int(tb.vp.width)
	if f.InnerWidth != w {
		t.Errorf("%s: window.innerWidth = %d, want the screen's %d: zoomed out to fit content wider than the screen", name, f.InnerWidth, w)
	}
	if f.ScrollWidth > f.InnerWidth || f.ScrollWidth > w || f.BodyWidth > w {
		t.Errorf("%s: horizontal overflow: scrollWidth %d, body %d, innerWidth %d, screen %d", name, f.ScrollWidth, f.BodyWidth, f.InnerWidth, w)
	}
	if f.MaxRight > float64(w)+0.5 {
		t.Errorf("%s: text reaches %.0f px, past the screen's right edge at %d: %q", name, f.MaxRight, w, f.MaxRightText)
	}
	for _, el := range f.Outside {
		t.Errorf("%s: reaches out of its card: %s", name, el)
	}
	if f.MinFontPx < 12 {
		t.Errorf("%s: text at %.1f px is too small: %q", name, f.MinFontPx, f.MinFontText)
	}
	if f.MinButtonPx != 0 && f.MinButtonPx < 44 {
		t.Errorf("%s: a button is %.0f px high, want at least 44 to tap", name, f.MinButtonPx)
	}
	if n := tb.net.requested(); n == 0 {
		t.Errorf("%s: the tab recorded no requests at all: the network log is not working", name)
	}
	for _, u := range tb.net.outside(origin) {
		t.Errorf("%s fetched %s, outside the sandbox %s", name, u, origin)
	}
	saveScreenshot(t, tb, name)
	return f
}

// qrFacts is the hosted page's QR image as the screen shows it.
type qrFacts struct {
	Complete     bool    `json:"complete"`
	NaturalWidth int     `json:"naturalWidth"`
	ShownWidth   float64 `json:"shownWidth"`
}

// checkPendingPage checks the hosted page of a payable order with a QR
// code: checkPage's checks, the payer's three buttons, and the QR image,
// loaded and shown scannable. It returns the text of the QR code as the
// screen shows it (decoded from a screenshot of the image, scaled as the
// screen scales it).
func checkPendingPage(t *testing.T, tb *tab, origin, name string, want ...string) (shownQR string) {
	t.Helper()
	var loaded bool
	var q qrFacts
	var qrShot []byte
	run(t, tb, "waiting for the Pay, Fail and Reject buttons",
		chromedp.WaitVisible(`button.pay`, chromedp.ByQuery),
		chromedp.WaitVisible(`button.fail`, chromedp.ByQuery),
		chromedp.WaitVisible(`button.reject`, chromedp.ByQuery))
	run(t, tb, "waiting for the QR image to load (naturalWidth > 0)",
		chromedp.Poll(`(() => { const i = document.querySelector('img.qr'); return !!i && i.complete && i.naturalWidth > 0; })()`, &loaded))
	run(t, tb, "reading the QR image",
		chromedp.Evaluate(`(() => { const i = document.querySelector('img.qr');
		  return {complete: i.complete, naturalWidth: i.naturalWidth, shownWidth: i.getBoundingClientRect().width}; })()`, &q),
		chromedp.Screenshot(`img.qr`, &qrShot, chromedp.ByQuery))
	if !q.Complete || q.NaturalWidth <= 0 {
		t.Errorf("QR image not loaded: complete %v, naturalWidth %d", q.Complete, q.NaturalWidth)
	}
	if q.ShownWidth < 200 || q.ShownWidth > float64(tb.vp.width) {
		t.Errorf("QR image shown %.0f px wide, want 200 to %d (scannable, on screen)", q.ShownWidth, tb.vp.width)
	}
	checkPage(t, tb, origin, name, want...)
	shownQR, located, err := decodeQR(qrShot)
	if err != nil {
		t.Errorf("the QR code as shown on the screen does not decode: %v", err)
	}
	logUnlocated(t, "QR code on the screen", located)
	return shownQR
}

// checkAbsent fails the test for each selector that matches on the page.
func checkAbsent(t *testing.T, tb *tab, name string, selectors ...string) {
	t.Helper()
	for _, sel := range selectors {
		var n int
		run(t, tb, "counting "+sel, chromedp.Evaluate(`document.querySelectorAll(`+jsString(sel)+`).length`, &n))
		if n != 0 {
			t.Errorf("%s shows %d of %s, want none", name, n, sel)
		}
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
