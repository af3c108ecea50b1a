package main

// TEMPORARY until package upilink lands: the same drawing through the
// internal encoder.

import (
	"strings"

	"github.com/upicollect/upicollect-go/internal/qrcode"
	"rsc.io/qr"
)

var upilinkPNG = func(text string, size int) ([]byte, error) { return qrcode.PNG(text, 8) }

func upilinkTerminal(text string) string {
	c, err := qrcode.Encode(text, qr.M)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for y := -2; y < c.Size+2; y += 2 {
		for x := -2; x < c.Size+2; x++ {
			top, bot := c.Black(x, y), c.Black(x, y+1)
			switch {
			case top && bot:
				b.WriteString(" ")
			case top:
				b.WriteString("▄")
			case bot:
				b.WriteString("▀")
			default:
				b.WriteString("█")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
