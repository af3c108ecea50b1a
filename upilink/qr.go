package upilink

import (
	"errors"
	"strings"

	"rsc.io/qr"

	"github.com/upicollect/upicollect-go/internal/qrcode"
)

// PNG draws text (usually a link's String) as a QR code in PNG, size pixels
// wide and high, as skip2/go-qrcode and `upicollect qr --size` mean it: the
// largest whole number of pixels per module that fits the code and the
// standard quiet zone of four modules, the pixels left over widening the
// margin, with the data mask the QR standard's penalty score picks. A size
// too small for one pixel per module, or above 8192, is an error, as is
// text longer than a QR code holds.
func PNG(text string, size int) ([]byte, error) {
	b, err := qrcode.PNGWidth(text, size)
	if err != nil {
		return nil, errors.New("upilink: PNG: " + err.Error())
	}
	return b, nil
}

// terminalQuiet is the quiet zone Terminal draws, in modules: smaller than
// the standard's four, which a terminal's own margin makes up.
const terminalQuiet = 2

// Terminal draws text as a QR code with Unicode half blocks, two module rows
// per line, for a phone camera to read off a terminal. Light modules and the
// quiet zone are drawn as blocks and dark modules as spaces, so on the usual
// dark terminal background the code appears dark on light, as scanners
// expect. On a light terminal it shows inverted; most scanners still read
// it. It returns "" when text is too long for a QR code.
func Terminal(text string) string {
	c, err := qrcode.Encode(text, qr.M)
	if err != nil {
		return ""
	}
	n := c.Size + 2*terminalQuiet
	light := func(x, y int) bool {
		x, y = x-terminalQuiet, y-terminalQuiet
		return !c.Black(x, y) // outside the code Black is false: quiet zone
	}
	var b strings.Builder
	for y := 0; y < n; y += 2 {
		for x := 0; x < n; x++ {
			// Past the last row is more quiet zone: light.
			top, bottom := light(x, y), light(x, y+1)
			switch {
			case top && bottom:
				b.WriteRune('█')
			case top:
				b.WriteRune('▀')
			case bottom:
				b.WriteRune('▄')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
