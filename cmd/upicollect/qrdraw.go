package main

// The CLI's --size is the PNG's width in pixels, so qrPNG fits whole
// pixels per module to it; the terminal drawing is upilink's.

import (
	"errors"

	"github.com/upicollect/upicollect-go/internal/qrcode"
	"rsc.io/qr"

	"github.com/upicollect/upicollect-go/upilink"
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

// qrTerminal draws text with upilink.Terminal, failing when the text is
// too long for a QR code.
func qrTerminal(text string) (string, error) {
	out := upilink.Terminal(text)
	if out == "" {
		return "", errors.New("text too long to encode as a QR code")
	}
	return out, nil
}
