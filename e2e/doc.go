// Package e2e holds end-to-end tests of the sandbox's hosted pages and QR
// codes: they decode the QR PNGs with a pure-Go decoder and drive every page
// (an intent paid, payment requests and payment links failed and rejected,
// an expired intent, an unknown order, the order list) in headless Chromium
// on a 390x844 phone and a 1280x800 laptop screen.
//
// They also build and run examples/checkout against a sandbox and drive its
// pay page on a 390x844 phone and a 1366x768 laptop (TestCheckoutPayPage):
// the laptop is shown the QR code, which must read as the intent's link off
// the screen, and no app link; the phone the app buttons, named and in
// order; no frame ever navigates to a upi: or app link.
//
// On each screen every page must have a language, a title and named buttons
// and links, fit the screen without horizontal scrolling, keep its content
// inside its card, and fetch nothing from outside the sandbox (checked on
// the browser's own network events).
//
// It is a separate module so that its heavy test tooling (a browser driver,
// a QR decoder) never enters the SDK's dependencies. Run it from here:
//
//	go test -race -count=1 ./...
//
// The browser tests look for /usr/bin/chromium, then chromium,
// chromium-browser and google-chrome on PATH. Without one they skip, unless
// CI=true, where they fail: .ci/run installs Debian's chromium first. A
// screenshot of every page on each screen is written to the git-ignored
// folder screenshots/ here, or to E2E_SCREENSHOT_DIR when that is set.
// Everything runs over loopback; no network is needed.
//
// It also runs the webhook receivers of docs/webhooks.md, in PHP and in
// Python, as printed there: over reconcile/webhook's test vectors, and
// served on loopback (php -S, python3's wsgiref) against live deliveries
// of the Go sender and the header's contested shapes (repeated fields,
// Upicollect_Signature, upper-case hex, whitespace), sent byte for byte to
// each receiver and to webhook.Receive alike. Without php or python3 those
// tests skip, unless CI=true, where they fail: .ci/run installs both.
package e2e
