package paypage

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"

	"github.com/upicollect/upicollect-go/internal/qrcode"
	"github.com/upicollect/upicollect-go/internal/upi"
)

// FuzzReadDynamicQR feeds readDynamicQR any text: it never panics, and its
// answer is exactly one of a checked PNG (a whole PNG, square, of a QR
// code's size, decoded from base64 no longer than the bound), a upi: link
// as sent, or a reason that names dynamicQR.
func FuzzReadDynamicQR(f *testing.F) {
	link := "upi://pay?pa=acme@okaxis&pn=Acme&am=499.00&tr=ORD-1001&cu=INR"
	img, err := qrcode.PNGWidth(link, 50)
	if err != nil {
		f.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(img)
	for _, seed := range []string{
		"", link, "UPI:pay?pa=a@b", "https://api.example.com/qr.png", "http://127.0.0.1/q.png",
		"data:image/png;base64," + b64, "DATA:IMAGE/PNG;BASE64," + b64, "data:image/png;x=y;base64," + b64,
		"data:image/png;base64," + b64[:len(b64)/2], "data:image/png;base64,iVBORw0KGgo!!", "data:image/jpeg;base64,/9j/",
		"data:image/png,raw", "data:", "data:,", "data:;base64,", b64, strings.TrimRight(b64, "="), "iVBORw0KGgo",
		"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "000201",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := readDynamicQR(s)
		forms := 0
		if got.png != nil {
			forms++
			cfg, err := png.DecodeConfig(bytes.NewReader(got.png))
			if err != nil || cfg.Width != got.size || cfg.Height != got.size || got.size < minQRImageSize || got.size > maxQRImageSize {
				t.Fatalf("%.80q: png %dx%d (%v), size %d", s, cfg.Width, cfg.Height, err, got.size)
			}
			if _, err := png.Decode(bytes.NewReader(got.png)); err != nil || len(got.png) > maxQRImageBytes {
				t.Fatalf("%.80q: a PNG of %d bytes that does not decode: %v", s, len(got.png), err)
			}
		}
		if got.link != "" {
			forms++
			if got.link != s || !upi.HasUPIScheme(s) {
				t.Fatalf("%.80q: link %.80q", s, got.link)
			}
		}
		if got.reason != "" {
			forms++
			if !strings.HasPrefix(got.reason, "dynamicQR ") {
				t.Fatalf("%.80q: reason %q", s, got.reason)
			}
		}
		if forms != 1 {
			t.Fatalf("%.80q: %d forms at once: %+v", s, forms, got)
		}
	})
}
