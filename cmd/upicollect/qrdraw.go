package main

import (
	"errors"
	"strings"

	"github.com/upicollect/upicollect-go/upilink"
)

// qrPNG draws text with upilink.PNG: --size is the image's width in pixels,
// as upilink means it. Its error names the flag, not the function.
func qrPNG(text string, size int) ([]byte, error) {
	img, err := upilink.PNG(text, size)
	if err != nil {
		return nil, errors.New("--size " + strings.TrimPrefix(err.Error(), "upilink: PNG: "))
	}
	return img, nil
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
