package paypage_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/qrcode"
	"github.com/upicollect/upicollect-go/paypage"
)

// qrLink is the generic link of the intents here; qrLinkOther the link a
// dynamic QR of its own carries (the same payment, another mode).
const (
	qrLink      = "upi://pay?" + payQuery
	qrLinkOther = "upi://pay?" + payQuery + "&mode=15"
)

// grayPNG is a blank w x h PNG.
func grayPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))))
	return b.Bytes()
}

// qrPNG is the SDK's drawing of text, size pixels wide.
func qrPNG(t *testing.T, text string, size int) []byte {
	t.Helper()
	b, err := qrcode.PNGWidth(text, size)
	require.NoError(t, err)
	return b
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// wrap breaks s into lines of n bytes with CR LF, as MIME wraps base64.
func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\r\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// TestQR: every form DynamicQR has taken gives an image: the
// service's PNG as sent, its upi: link drawn, or the generic link drawn
// with the reason DynamicQR was not used.
func TestQR(t *testing.T) {
	t.Parallel()
	service := qrPNG(t, qrLink, 232) // the service's own image
	gifBytes := func() []byte {
		var b bytes.Buffer
		require.NoError(t, gif.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 40)), nil))
		return b.Bytes()
	}()
	const png2048 = 2048
	big := grayPNG(t, png2048, png2048)
	tooLongLink := "upi://pay?" + payQuery + "&tn=" + strings.Repeat("x", 2400) // readable, more than level M holds
	for _, tt := range []struct {
		name, dynamicQR string
		source          paypage.Source
		png             []byte // want, for QRFromImage
		size            int    // want, for QRFromImage
		reason          string // want, for QRFromLink
	}{
		{name: "data URL", dynamicQR: "data:image/png;base64," + b64(service), source: paypage.FromImage, png: service, size: 232},
		{name: "data URL in capitals", dynamicQR: "DATA:IMAGE/PNG;BASE64," + b64(service), source: paypage.FromImage, png: service, size: 232},
		{name: "data URL with parameters", dynamicQR: "data: image/png ;name=qr.png;base64," + b64(service), source: paypage.FromImage, png: service, size: 232},
		{name: "data URL wrapped at 76", dynamicQR: "data:image/png;base64," + wrap(b64(service), 76), source: paypage.FromImage, png: service, size: 232},
		{name: "data URL without padding", dynamicQR: "data:image/png;base64," + strings.TrimRight(b64(grayPNG(t, 21, 21)), "="),
			source: paypage.FromImage, png: grayPNG(t, 21, 21), size: 21},
		{name: "raw base64", dynamicQR: b64(service), source: paypage.FromImage, png: service, size: 232},
		{name: "the largest image", dynamicQR: b64(big), source: paypage.FromImage, png: big, size: png2048},
		{name: "a upi: link", dynamicQR: qrLinkOther, source: paypage.FromQRLink},
		{name: "a UPI: link", dynamicQR: "UPI:" + qrLinkOther[4:], source: paypage.FromQRLink},

		{name: "absent", dynamicQR: "", source: paypage.FromLink, reason: "dynamicQR is absent"},
		{name: "https address", dynamicQR: "https://api.example.com/qr/ORD-1001.png", source: paypage.FromLink,
			reason: "dynamicQR is a web address, which the SDK does not fetch"},
		{name: "http address", dynamicQR: "HTTP://127.0.0.1:8080/sandbox/qr/ORD-1001.png", source: paypage.FromLink,
			reason: "dynamicQR is a web address, which the SDK does not fetch"},
		{name: "bad base64 in a data URL", dynamicQR: "data:image/png;base64,iVBORw0KGgo!!!!", source: paypage.FromLink,
			reason: "dynamicQR is not base64: illegal base64 data at input byte 11"},
		{name: "bad raw base64", dynamicQR: "iVBORw0KGgo*", source: paypage.FromLink,
			reason: "dynamicQR is not base64: illegal base64 data at input byte 11"},
		{name: "a data URL of a JPEG", dynamicQR: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==", source: paypage.FromLink,
			reason: `dynamicQR is a data URL of "image/jpeg", not image/png`},
		{name: "an SVG data URL", dynamicQR: "data:image/svg+xml;base64," + b64([]byte("<svg onload=alert(1)>")), source: paypage.FromLink,
			reason: `dynamicQR is a data URL of "image/svg+xml", not image/png`},
		{name: "a GIF called PNG", dynamicQR: "data:image/png;base64," + b64(gifBytes), source: paypage.FromLink,
			reason: "dynamicQR is not a PNG: png: invalid format: not a PNG file"},
		{name: "a data URL not in base64", dynamicQR: "data:image/png,%89PNG", source: paypage.FromLink,
			reason: "dynamicQR is a data URL that is not base64"},
		{name: "a data URL without a comma", dynamicQR: "data:", source: paypage.FromLink,
			reason: "dynamicQR is a data URL without a comma"},
		{name: "a PNG of one pixel", dynamicQR: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
			source: paypage.FromLink, reason: "dynamicQR is a 1x1 image, not the square of 21 to 2048 pixels of a QR code"},
		{name: "a PNG one pixel too small", dynamicQR: b64(grayPNG(t, 20, 20)), source: paypage.FromLink,
			reason: "dynamicQR is a 20x20 image, not the square of 21 to 2048 pixels of a QR code"},
		{name: "a PNG one pixel too large", dynamicQR: b64(grayPNG(t, png2048+1, png2048+1)), source: paypage.FromLink,
			reason: "dynamicQR is a 2049x2049 image, not the square of 21 to 2048 pixels of a QR code"},
		{name: "a PNG not square", dynamicQR: b64(grayPNG(t, 232, 240)), source: paypage.FromLink,
			reason: "dynamicQR is a 232x240 image, not the square of 21 to 2048 pixels of a QR code"},
		{name: "a damaged PNG", dynamicQR: b64(service[:len(service)-20]), source: paypage.FromLink,
			reason: "dynamicQR is a damaged PNG: png: invalid format: unexpected EOF"},
		{name: "base64 longer than an image may be", dynamicQR: "iVBORw0KGgo" + strings.Repeat("A", 2*1398104), source: paypage.FromLink,
			reason: "dynamicQR is longer than a 1048576-byte image"},
		{name: "base64 as long as an image may be, most of it white space", dynamicQR: b64(service) + strings.Repeat(" ", 2*1398104-len(b64(service))),
			source: paypage.FromImage, png: service, size: 232},
		{name: "an image of 1 MiB", dynamicQR: "iVBORw0KGgo" + strings.Repeat("A", 1398091), source: paypage.FromLink,
			reason: "dynamicQR is not a PNG: png: invalid format: invalid checksum"},
		{name: "an image longer than 1 MiB", dynamicQR: "iVBORw0KGgo" + strings.Repeat("A", 1398104), source: paypage.FromLink,
			reason: "dynamicQR is longer than a 1048576-byte image"},
		{name: "QR text", dynamicQR: "000201010212", source: paypage.FromLink,
			reason: "dynamicQR is neither a PNG nor a upi: link"},
		{name: "an app's link", dynamicQR: "phonepe://pay?" + payQuery, source: paypage.FromLink,
			reason: "dynamicQR is neither a PNG nor a upi: link"},
		{name: "a upi: link without a payee", dynamicQR: "upi://pay?am=499.00", source: paypage.FromLink,
			reason: "dynamicQR is not a UPI link the SDK can read"},
		{name: "a upi: link with a space after it", dynamicQR: qrLinkOther + " ", source: paypage.FromLink,
			reason: "dynamicQR is not a UPI link the SDK can read"},
		{name: "a upi: link too long to draw", dynamicQR: tooLongLink, source: paypage.FromLink,
			reason: "dynamicQR is too long for a QR code"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &upicollect.Intent{Link: qrLink, DynamicQR: tt.dynamicQR}
			img, err := paypage.QR(in, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.source, img.Source)
			assert.Equal(t, tt.reason, img.Reason)
			assert.Equal(t, "data:image/png;base64,"+b64(img.PNG), string(img.DataURL()))
			switch tt.source {
			case paypage.FromImage:
				assert.Equal(t, tt.png, img.PNG, "the service's image as sent")
				assert.Equal(t, tt.size, img.Size)
				assert.Empty(t, img.Text, "the SDK does not read the service's image")
			case paypage.FromQRLink:
				assert.Equal(t, tt.dynamicQR, img.Text)
				assert.Equal(t, qrPNG(t, tt.dynamicQR, paypage.DefaultQRSize), img.PNG)
				assert.Equal(t, paypage.DefaultQRSize, img.Size)
			case paypage.FromLink:
				assert.Equal(t, qrLink, img.Text)
				assert.Equal(t, qrPNG(t, qrLink, paypage.DefaultQRSize), img.PNG)
				assert.Equal(t, paypage.DefaultQRSize, img.Size)
			}
		})
	}
}

// TestQRSize: size is the drawn image's width, 0 the default; it
// does not apply to the service's image; a size that cannot be drawn is a
// *ValidationError naming "size".
func TestQRSize(t *testing.T) {
	t.Parallel()
	service := qrPNG(t, qrLink, 232)
	need, err := qrcode.Width(qrLink)
	require.NoError(t, err)
	tooFew := fmt.Sprintf("width %d pixels: this code needs %d to 8192", need-1, need)
	for _, tt := range []struct {
		name      string
		dynamicQR string
		size      int
		wantSize  int    // 0: an error
		problem   string // the size's, for an error
	}{
		{name: "default", size: 0, wantSize: paypage.DefaultQRSize},
		{name: "given", size: 500, wantSize: 500},
		{name: "one pixel a module", size: need, wantSize: need},
		{name: "a pixel too few", size: need - 1, problem: tooFew},
		{name: "negative", size: -1, problem: "-1 pixels: want 0 (DefaultQRSize) or up to 8192"},
		{name: "above the largest", size: 8193, problem: "8193 pixels: want 0 (DefaultQRSize) or up to 8192"},
		{name: "the largest, for the service's image", dynamicQR: b64(service), size: 8192, wantSize: 232},
		{name: "a pixel too few, for a dynamic QR link", dynamicQR: qrLink, size: need - 1, problem: tooFew},
		{name: "too large, for the service's image", dynamicQR: b64(service), size: 8193, problem: "8193 pixels: want 0 (DefaultQRSize) or up to 8192"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := &upicollect.Intent{Link: qrLink, DynamicQR: tt.dynamicQR}
			img, err := paypage.QR(in, tt.size)
			if tt.problem != "" {
				assertFieldProblem(t, err, "paypage.QR", "size", tt.problem)
				assert.Nil(t, img)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSize, img.Size)
			cfg, err := png.DecodeConfig(bytes.NewReader(img.PNG))
			require.NoError(t, err)
			assert.Equal(t, tt.wantSize, cfg.Width)
			assert.Equal(t, tt.wantSize, cfg.Height)
		})
	}
}

// assertFieldProblem checks that err is a *ValidationError of op with one
// problem, of field.
func assertFieldProblem(t *testing.T, err error, op, field, problem string) {
	t.Helper()
	var ve *upicollect.ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
	assert.ErrorIs(t, err, upicollect.ErrValidation)
	assert.Equal(t, op, ve.Op)
	assert.Equal(t, []upicollect.FieldError{{Field: field, Problem: problem}}, ve.Fields)
}

// TestQRWithoutAGenericLink: the service's image needs no generic
// link; every drawing does, and an intent without a readable upi: one is a
// *ValidationError naming "intent", as a nil intent is.
func TestQRWithoutAGenericLink(t *testing.T) {
	t.Parallel()
	service := qrPNG(t, qrLink, 232)
	img, err := paypage.QR(&upicollect.Intent{DynamicQR: b64(service)}, 0)
	require.NoError(t, err)
	assert.Equal(t, paypage.FromImage, img.Source)
	img, err = paypage.QR(&upicollect.Intent{DynamicQR: qrLinkOther}, 0)
	require.NoError(t, err)
	assert.Equal(t, paypage.FromQRLink, img.Source)

	for _, link := range []string{"", "phonepe://pay?" + payQuery, "javascript:alert(1)//?" + payQuery, " " + qrLink} {
		for _, dq := range []string{"", "https://api.example.com/qr.png", "iVBORw0KGgo*"} {
			in := &upicollect.Intent{Link: link, DynamicQR: dq}
			img, err := paypage.QR(in, 0)
			assertFieldProblem(t, err, "paypage.QR", "intent", "is not a upi: link the SDK can read")
			assert.Nil(t, img)
			img, err = paypage.LinkQR(in, 0)
			assertFieldProblem(t, err, "paypage.LinkQR", "intent", "is not a upi: link the SDK can read")
			assert.Nil(t, img)
		}
	}
	tooLong := &upicollect.Intent{Link: "upi://pay?" + payQuery + "&tn=" + strings.Repeat("x", 2400)}
	_, err = paypage.QR(tooLong, 0)
	assertFieldProblem(t, err, "paypage.QR", "intent", "is too long for a QR code")

	var nilIntent *upicollect.Intent
	_, err = paypage.QR(nilIntent, 0)
	assertFieldProblem(t, err, "paypage.QR", "intent", "is nil")
	_, err = paypage.LinkQR(nilIntent, 0)
	assertFieldProblem(t, err, "paypage.LinkQR", "intent", "is nil")
}

// TestLinkQR: LinkQR draws the generic link whatever DynamicQR
// holds, at the size asked.
func TestLinkQR(t *testing.T) {
	t.Parallel()
	for _, dq := range []string{"", b64(qrPNG(t, qrLinkOther, 232)), qrLinkOther, "https://api.example.com/qr.png"} {
		in := &upicollect.Intent{Link: qrLink, DynamicQR: dq}
		img, err := paypage.LinkQR(in, 0)
		require.NoError(t, err)
		assert.Equal(t, paypage.Image{PNG: qrPNG(t, qrLink, paypage.DefaultQRSize), Size: paypage.DefaultQRSize,
			Source: paypage.FromLink, Text: qrLink}, *img, dq)
		img, err = paypage.LinkQR(in, 100)
		require.NoError(t, err)
		assert.Equal(t, 100, img.Size)
		assert.Equal(t, qrPNG(t, qrLink, 100), img.PNG)
	}
	_, err := paypage.LinkQR(&upicollect.Intent{Link: qrLink}, -5)
	assertFieldProblem(t, err, "paypage.LinkQR", "size", "-5 pixels: want 0 (DefaultQRSize) or up to 8192")
	_, err = paypage.LinkQR(&upicollect.Intent{Link: qrLink}, 20)
	assertFieldProblem(t, err, "paypage.LinkQR", "size", "width 20 pixels: this code needs 41 to 8192")
}
