package main

// The CLI draws QR codes here until the public upilink package (PNG,
// Terminal) ships; then qrPNG and qrTerminal become upilink.PNG and
// upilink.Terminal and this file goes.

import (
	"errors"
	"strings"

	"github.com/upicollect/upicollect-go/internal/qrcode"
	"rsc.io/qr"
)

// quietModules is the quiet zone rsc.io/qr draws on each side of a PNG.
const quietModules = 4

// qrPNG renders text as a PNG at most size pixels wide, quiet zone
// included, with whole pixels per module so that edges stay sharp.
func qrPNG(text string, size int) ([]byte, error) {
	c, err := qrcode.Encode(text, qr.M)
	if err != nil {
		return nil, err
	}
	scale := size / (c.Size + 2*quietModules)
	if scale < 1 {
		return nil, errors.New("--size too small for this QR code")
	}
	c.Scale = scale
	return c.PNG(), nil
}

// qrTerminal draws text as a QR code with Unicode half blocks, two modules
// a character, light modules as blocks: a dark terminal then shows dark
// modules on light, as a camera expects, with a two-module quiet zone.
func qrTerminal(text string) (string, error) {
	c, err := qrcode.Encode(text, qr.M)
	if err != nil {
		return "", err
	}
	const quiet = 2
	var b strings.Builder
	for y := -quiet; y < c.Size+quiet; y += 2 {
		for x := -quiet; x < c.Size+quiet; x++ {
			b.WriteString(halfBlock(!c.Black(x, y), !c.Black(x, y+1)))
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// halfBlock is the character for a light or dark top and bottom module.
func halfBlock(topLight, bottomLight bool) string {
	switch {
	case topLight && bottomLight:
		return "█"
	case topLight:
		return "▀"
	case bottomLight:
		return "▄"
	}
	return " "
}
