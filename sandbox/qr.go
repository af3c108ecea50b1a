package sandbox

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/upicollect/upicollect-go/internal/qrcode"
)

// qrScale is pixels per QR module: a version-6 code comes out near 400 px,
// large enough for a phone camera off a laptop screen.
const qrScale = 8

// qrPNG renders text as a QR code PNG with a quiet zone and the data mask
// real scanners expect.
func qrPNG(text string) ([]byte, error) { return qrcode.PNG(text, qrScale) }

// qrShown is the least width, in CSS pixels, the hosted page shows its QR
// code at: what a phone camera reads comfortably off a laptop screen.
const qrShown = 240

// qrShownWidth is the width, in CSS pixels, the hosted page shows the QR
// code of text at: the least whole number of pixels per module that makes
// it qrShown wide or wider. Shown at any other scale, some modules are a
// pixel wider than others (a 69-module code at 260 pixels mixes 3- and
// 4-pixel modules), which readers that measure one module and count on it
// fail on; at a whole scale every module is alike on a screen of any
// whole device pixel ratio. Text too long for a code (the image then
// fails) gets qrShown.
func qrShownWidth(text string) int {
	modules, err := qrcode.Width(text)
	if err != nil {
		return qrShown
	}
	perModule := (qrShown + modules - 1) / modules
	return perModule * modules
}

// serveQR answers GET /sandbox/qr/{order_id}.png with the QR code of the
// order's UPI link: what the intent's dynamicQR points to.
func (s *Service) serveQR(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".png")
	o, found := s.Order(id)
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	png, err := qrPNG("upi://pay?" + s.upiQuery(&o))
	if err != nil { // only for links longer than a QR code holds
		s.logPageError(r, "QR code failed", err, slog.String("order_id", id))
		http.Error(w, "The sandbox could not draw this QR code. Its log says why.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(png)
}
