package paypage

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/qrcode"
)

// DefaultQRSize is the width and height, in pixels, of a QR code that QR
// and LinkQR draw when given size 0. A page that shows it at that size in
// CSS pixels shows it pixel for pixel on a laptop and at exactly two device
// pixels to one on most phones, every module alike, and large enough for
// a phone camera to read off a laptop screen.
const DefaultQRSize = 320

// Source says what an intent's QR Image was made from.
type Source string

const (
	// FromImage is the service's own PNG: Intent.DynamicQR was a
	// data:image/png;base64 URL or raw base64 of a PNG, decoded and checked
	// to be a whole PNG in the shape of a QR code.
	FromImage Source = "image"
	// FromQRLink is Intent.DynamicQR's upi: link, drawn by the SDK.
	FromQRLink Source = "qr-link"
	// FromLink is the generic link, Intent.Link, drawn by the SDK:
	// DynamicQR was absent, a web address, or not usable (Image.Reason).
	FromLink Source = "link"
)

// Image is an intent's QR code as a PNG image, for a page to show.
type Image struct {
	PNG    []byte // the image, a PNG
	Size   int    // its width and height in pixels
	Source Source // what it was made from
	// Text is the link the code reads as, when the SDK drew it; "" for the
	// service's image (FromImage), which the SDK does not read.
	Text string
	// Reason says why DynamicQR was not used, for FromLink: "dynamicQR is
	// absent", "dynamicQR is a web address, which the SDK does not fetch",
	// "dynamicQR is not base64: ...", ... Log it if you like; the image is
	// the generic link's all the same.
	Reason string
}

// DataURL is the image as a data:image/png;base64 URL, typed for
// html/template: <img src="{{.DataURL}}"> keeps it, where html/template
// would blank a data: URL given as a string. That is safe because the URL
// is built here, of a fixed media type and base64 only: whatever PNG holds,
// a browser shows it as an image and nothing else. The page needs no
// second request and no route of its own for the image.
func (img *Image) DataURL() template.URL {
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(img.PNG))
}

// QR returns the intent's QR code as an image, from whichever form
// Intent.DynamicQR took:
//
//   - a data:image/png;base64 URL, or raw base64 of a PNG (without the
//     "data:" prefix): the service's image, decoded and checked to be a
//     whole PNG, a square of 21 to 2048 pixels, of at most 1 MiB; it is
//     returned as sent (FromImage) and size does not apply;
//   - a upi: link (CreatePaymentIntent has checked it pays the amount,
//     order and payee asked): drawn by the SDK, size pixels wide
//     (FromQRLink);
//   - the web address of an image: never fetched. The SDK makes no request
//     the caller did not ask for, and a page that pointed the payer's
//     browser there would tell the service's host the payer's address and
//     the page they are on, and show nothing when that host is slow or
//     down. The generic link is drawn instead (FromLink), which reads as
//     the same payment. A page that wants the service's image all the same
//     may put DynamicQR in an <img src> itself: html/template keeps an
//     http(s) URL as it is.
//
// When DynamicQR is absent, or not usable (bad base64, a data URL of
// another type than image/png, an image that is not a PNG or not the shape
// of a QR code, a upi: link that cannot be read or is too long for a QR
// code, text that is none of the above), the generic link is drawn
// (FromLink) and Image.Reason says why. So a page shows a QR code for
// every intent CreatePaymentIntent returns; see LinkQR for one that is
// always drawn from the generic link.
//
// Size is the drawn image's width and height in pixels, 0 for
// DefaultQRSize: the largest whole number of pixels per module that fits
// the code and its margin of four modules, the pixels left over widening
// the margin. A size below what the code needs (one pixel a module) or
// above 8192 is a *upicollect.ValidationError naming "size"; a nil intent,
// or one whose generic link is needed and is not a upi: link the SDK can
// read, one naming "intent". It does no I/O.
//
// The service's image is the one part of an intent the SDK cannot read:
// it checks that it is a PNG, not which link it holds. A page that must
// show only what the SDK has checked uses LinkQR.
func QR(in *upicollect.Intent, size int) (*Image, error) {
	const op = "paypage.QR"
	size, err := qrSize(op, in, size)
	if err != nil {
		return nil, err
	}
	f := readDynamicQR(in.DynamicQR)
	switch {
	case f.png != nil:
		return &Image{PNG: f.png, Size: f.size, Source: FromImage}, nil
	case f.link != "" && !isUPILink(f.link):
		f.reason = "dynamicQR is not a UPI link the SDK can read"
	case f.link != "":
		img, err := drawQR(op, "dynamicQR", f.link, size)
		var ve *upicollect.ValidationError
		if errors.As(err, &ve) && ve.Fields[0].Field == "dynamicQR" {
			f.reason = "dynamicQR " + errTooLongForQR
			break
		}
		if err != nil {
			return nil, err
		}
		img.Source = FromQRLink
		return img, nil
	}
	img, err := linkQR(op, in, size)
	if err != nil {
		return nil, err
	}
	img.Reason = f.reason
	return img, nil
}

// LinkQR returns the QR code of the intent's generic link, Intent.Link,
// drawn by the SDK whatever DynamicQR holds (FromLink): the code reads as
// the link CreatePaymentIntent checked. Size is as for QR. A nil intent,
// or a generic link that is not a upi: link the SDK can read (an Intent
// built elsewhere), is a *upicollect.ValidationError naming "intent". It
// does no I/O.
func LinkQR(in *upicollect.Intent, size int) (*Image, error) {
	const op = "paypage.LinkQR"
	size, err := qrSize(op, in, size)
	if err != nil {
		return nil, err
	}
	return linkQR(op, in, size)
}

// linkQR draws the generic link, size pixels wide.
func linkQR(op string, in *upicollect.Intent, size int) (*Image, error) {
	if !isUPILink(in.Link) {
		return nil, invalid(op, "intent", "is not a upi: link the SDK can read")
	}
	img, err := drawQR(op, "intent", in.Link, size)
	if err != nil {
		return nil, err
	}
	img.Source = FromLink
	return img, nil
}

// qrSize checks QR's and LinkQR's arguments: an intent, and a size of 0
// (DefaultQRSize, returned) up to what the encoder draws.
func qrSize(op string, in *upicollect.Intent, size int) (int, error) {
	switch {
	case in == nil:
		return 0, invalid(op, "intent", "is nil")
	case size < 0 || size > qrcode.MaxWidth:
		return 0, invalid(op, "size", fmt.Sprintf("%d pixels: want 0 (DefaultQRSize) or up to %d", size, qrcode.MaxWidth))
	case size == 0:
		return DefaultQRSize, nil
	}
	return size, nil
}

// errTooLongForQR is the problem of a link longer than a QR code holds at
// the error-correction level the SDK draws (M: 2331 bytes).
const errTooLongForQR = "is too long for a QR code"

// drawQR draws link, the value of field, as a QR code size pixels wide.
func drawQR(op, field, link string, size int) (*Image, error) {
	if _, err := qrcode.Width(link); err != nil {
		return nil, invalid(op, field, errTooLongForQR)
	}
	b, err := qrcode.PNGWidth(link, size) // the text fits: an error is the size's
	if err != nil {
		return nil, invalid(op, "size", err.Error())
	}
	return &Image{PNG: b, Size: size, Text: link}, nil
}

// invalid is the *upicollect.ValidationError of op for one field's problem.
func invalid(op, field, problem string) error {
	return &upicollect.ValidationError{Op: op, Fields: []upicollect.FieldError{{Field: field, Problem: problem}}}
}
