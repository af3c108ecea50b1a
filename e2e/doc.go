// Package e2e holds end-to-end tests of the sandbox's hosted payment pages
// and QR codes: they decode the QR PNGs with a pure-Go decoder and drive the
// pages in headless Chromium at a phone's size.
//
// It is a separate module so that its heavy test tooling (a browser driver,
// a QR decoder) never enters the SDK's dependencies. Run it from here:
//
//	go test -race -count=1 ./...
//
// The browser tests look for /usr/bin/chromium, then chromium,
// chromium-browser and google-chrome on PATH. Without one they skip, unless
// CI=true, where they fail: .ci/run installs Debian's chromium first. With
// E2E_SCREENSHOT_DIR set, the hosted pages' screenshots are written there too.
// Everything runs over loopback; no network is needed.
package e2e
