package paypage

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"strings"

	"github.com/upicollect/upicollect-go/internal/upi"
)

// The bounds of a PNG that DynamicQR carries, for it to be shown as a QR
// code: at most maxQRImageBytes of PNG, a square of minQRImageSize (a
// version-1 code at one pixel a module, no margin) to maxQRImageSize
// pixels (a version-40 code with its margin at 11 pixels a module). The
// image is decoded in full to check it, so the size bounds its memory.
const (
	maxQRImageBytes = 1 << 20
	minQRImageSize  = 21
	maxQRImageSize  = 2048
)

// pngBase64Prefix begins the base64 of every PNG: its 8-byte signature.
const pngBase64Prefix = "iVBORw0KGgo"

// qrForm is what an intent's DynamicQR holds: a checked PNG, a upi: link,
// or neither, and then why not.
type qrForm struct {
	png    []byte // a PNG of QR-code shape, decoded and checked
	size   int    // its width and height in pixels
	link   string // a upi: link, as sent
	reason string // why it is neither a PNG nor a link; "" when it is one
}

// readDynamicQR reads the forms the service has sent dynamicQR in: a
// data:image/png;base64 URL, raw base64 of a PNG (what the vendor's
// Android SDK decodes), the upi: link to draw, or the web address of an
// image, which is never fetched. It does no I/O.
func readDynamicQR(s string) qrForm {
	var b []byte
	var err error
	switch {
	case s == "":
		return qrForm{reason: "dynamicQR is absent"}
	case upi.HasUPIScheme(s):
		return qrForm{link: s}
	case hasPrefixFold(s, "data:"):
		b, err = decodeDataURL(s[len("data:"):])
	case strings.HasPrefix(s, pngBase64Prefix):
		b, err = decodeBase64(s)
	case hasPrefixFold(s, "https://"), hasPrefixFold(s, "http://"):
		return qrForm{reason: "dynamicQR is a web address, which the SDK does not fetch"}
	default:
		return qrForm{reason: "dynamicQR is neither a PNG nor a upi: link"}
	}
	var size int
	if err == nil {
		size, err = checkQRPNG(b)
	}
	if err != nil {
		return qrForm{reason: "dynamicQR " + err.Error()}
	}
	return qrForm{png: b, size: size}
}

// decodeDataURL decodes the rest of a data: URL (RFC 2397) after its
// scheme: base64 of image/png, the media type's parameters allowed.
func decodeDataURL(rest string) ([]byte, error) {
	header, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, errors.New("is a data URL without a comma")
	}
	params := strings.Split(header, ";")
	if !strings.EqualFold(params[len(params)-1], "base64") {
		return nil, errors.New("is a data URL that is not base64")
	}
	if mt := strings.TrimSpace(params[0]); !strings.EqualFold(mt, "image/png") {
		return nil, fmt.Errorf("is a data URL of %s, not image/png", upi.Quote(mt))
	}
	return decodeBase64(data)
}

// decodeBase64 decodes standard base64, its padding optional and ASCII
// white space (line breaks of wrapped base64) ignored, refusing what would
// decode to more than maxQRImageBytes before decoding it.
func decodeBase64(s string) ([]byte, error) {
	if len(s) > 2*base64.StdEncoding.EncodedLen(maxQRImageBytes) {
		return nil, fmt.Errorf("is longer than a %d-byte image", maxQRImageBytes)
	}
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	switch {
	case err != nil:
		return nil, fmt.Errorf("is not base64: %w", err)
	case len(b) > maxQRImageBytes:
		return nil, fmt.Errorf("is longer than a %d-byte image", maxQRImageBytes)
	}
	return b, nil
}

// checkQRPNG checks that b is a whole PNG image in the shape of a QR code
// (a square of minQRImageSize to maxQRImageSize pixels) and returns its
// size.
func checkQRPNG(b []byte) (int, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("is not a PNG: %w", err)
	}
	if cfg.Width != cfg.Height || cfg.Width < minQRImageSize || cfg.Width > maxQRImageSize {
		return 0, fmt.Errorf("is a %dx%d image, not the square of %d to %d pixels of a QR code",
			cfg.Width, cfg.Height, minQRImageSize, maxQRImageSize)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		return 0, fmt.Errorf("is a damaged PNG: %w", err)
	}
	return cfg.Width, nil
}

// hasPrefixFold reports whether s begins with prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
