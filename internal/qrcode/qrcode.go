// Package qrcode encodes QR codes with rsc.io/qr's coding package and,
// unlike rsc.io/qr.Encode (which always uses data mask 0), picks the data
// mask the QR standard asks for: the one with the lowest penalty score
// (ISO/IEC 18004, 8.8.2). With mask 0 about 1 % of codes carry finder-like
// patterns that real scanners fail to locate.
package qrcode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"

	"rsc.io/qr"
	"rsc.io/qr/coding"
)

// MaxText is the most bytes any QR code holds: 7089 digits (version 40,
// level L, numeric mode). Encode refuses longer text by its length alone,
// before it reads or copies any of it (rsc.io/qr's checks quote the whole
// text in their errors: 96 MiB for 16 MiB of text).
const MaxText = 7089

var errTooLong = errors.New("qrcode: text too long to encode as QR")

// Encode returns the QR code of text at the given error-correction level,
// in the smallest version that holds it, with the best data mask.
func Encode(text string, level qr.Level) (*qr.Code, error) {
	if len(text) > MaxText {
		return nil, errTooLong
	}
	var enc coding.Encoding
	switch {
	case coding.Num(text).Check() == nil:
		enc = coding.Num(text)
	case coding.Alpha(text).Check() == nil:
		enc = coding.Alpha(text)
	default:
		enc = coding.String(text)
	}
	l := coding.Level(level)
	v := coding.Version(coding.MinVersion)
	for ; enc.Bits(v) > v.DataBytes(l)*8; v++ {
		if v == coding.MaxVersion {
			return nil, errTooLong
		}
	}
	var best *coding.Code
	bestScore := -1
	for m := coding.Mask(0); m < 8; m++ {
		p, err := coding.NewPlan(v, l, m)
		if err != nil {
			return nil, err
		}
		c, err := p.Encode(enc)
		if err != nil {
			return nil, err
		}
		if s := Penalty(c); bestScore < 0 || s < bestScore {
			best, bestScore = c, s
		}
	}
	return &qr.Code{Bitmap: best.Bitmap, Size: best.Size, Stride: best.Stride, Scale: 8}, nil
}

// PNG renders the QR code of text (level M) as a PNG with scale pixels per
// module and the standard quiet zone.
func PNG(text string, scale int) ([]byte, error) {
	c, err := Encode(text, qr.M)
	if err != nil {
		return nil, err
	}
	c.Scale = scale
	return c.PNG(), nil
}

// MaxWidth bounds PNGWidth's image: 8192 pixels a side is 64 MiB of
// pixels in memory, more than any screen or print needs.
const MaxWidth = 8192

// PNGWidth renders the QR code of text (level M) as a PNG width pixels wide
// and high: the largest whole number of pixels per module that fits the code
// and the standard quiet zone of four modules on each side; pixels left over
// widen the margin. A width too small for one pixel per module, or above
// MaxWidth, is an error.
func PNGWidth(text string, width int) ([]byte, error) {
	c, err := Encode(text, qr.M)
	if err != nil {
		return nil, err
	}
	need := c.Size + 2*quietZone
	if width < need || width > MaxWidth {
		return nil, fmt.Errorf("width %d pixels: this code needs %d to %d", width, need, MaxWidth)
	}
	scale := width / need
	offset := (width - c.Size*scale) / 2
	img := image.NewGray(image.Rect(0, 0, width, width))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := 0; y < c.Size; y++ {
		for x := 0; x < c.Size; x++ {
			if !c.Black(x, y) {
				continue
			}
			for dy := 0; dy < scale; dy++ {
				row := img.Pix[(offset+y*scale+dy)*img.Stride:]
				for dx := 0; dx < scale; dx++ {
					row[offset+x*scale+dx] = 0
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// quietZone is the standard's margin around a code, in modules.
const quietZone = 4

// Width returns the width of the code PNG draws for text, in modules: the
// code's own and the quiet zone on both sides. A page that shows the image
// at a whole number of pixels per module shows every module alike; scaled
// by any other factor, modules come out one pixel wider or narrower than
// their neighbours, which some readers fail on.
func Width(text string) (int, error) {
	c, err := Encode(text, qr.M)
	if err != nil {
		return 0, err
	}
	return c.Size + 2*quietZone, nil
}

// Penalty scores a symbol by the standard's four rules: runs of five or
// more modules of one colour, 2x2 blocks of one colour, finder-like
// 1:1:3:1:1 patterns beside four light modules, and a dark share far from
// half. Lower is better.
func Penalty(c *coding.Code) int {
	n := c.Size
	at := func(x, y int) bool { return c.Black(x, y) }
	score := 0
	dark := 0
	for i := 0; i < n; i++ {
		score += linePenalty(n, func(k int) bool { return at(k, i) }) // row i
		score += linePenalty(n, func(k int) bool { return at(i, k) }) // column i
		for j := 0; j < n; j++ {
			if at(j, i) {
				dark++
			}
			if i+1 < n && j+1 < n {
				b := at(j, i)
				if at(j+1, i) == b && at(j, i+1) == b && at(j+1, i+1) == b {
					score += 3
				}
			}
		}
	}
	total := n * n
	dev := dark*100/total - 50
	if dev < 0 {
		dev = -dev
	}
	return score + dev/5*10
}

// finder is the 1:1:3:1:1 pattern with four light modules after it.
var finder = [11]bool{true, false, true, true, true, false, true, false, false, false, false}

// linePenalty scores one row or column for rules 1 and 3.
func linePenalty(n int, black func(int) bool) int {
	score := 0
	run := 1
	for k := 1; k <= n; k++ {
		if k < n && black(k) == black(k-1) {
			run++
			continue
		}
		if run >= 5 {
			score += 3 + run - 5
		}
		run = 1
	}
	for k := 0; k+len(finder) <= n; k++ {
		fwd, back := true, true
		for i, f := range finder {
			if black(k+i) != f {
				fwd = false
			}
			if black(k+len(finder)-1-i) != f {
				back = false
			}
		}
		if fwd {
			score += 40
		}
		if back {
			score += 40
		}
	}
	return score
}
