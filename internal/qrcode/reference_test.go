package qrcode

import (
	"bytes"
	"fmt"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"rsc.io/qr"
	"rsc.io/qr/coding"
)

// referencePenalty scores a symbol by the standard's four rules, written
// out plainly over a grid: the check of Penalty's loops and arithmetic.
func referencePenalty(c *coding.Code) int {
	n := c.Size
	g := make([][]bool, n) // g[y][x]
	for y := range g {
		g[y] = make([]bool, n)
		for x := range g[y] {
			g[y][x] = c.Black(x, y)
		}
	}
	var lines [][]bool
	for i := 0; i < n; i++ {
		row, col := make([]bool, n), make([]bool, n)
		for k := 0; k < n; k++ {
			row[k], col[k] = g[i][k], g[k][i]
		}
		lines = append(lines, row, col)
	}
	score := 0
	for _, line := range lines {
		for start := 0; start < n; { // rule 1: runs of five or more
			end := start
			for end < n && line[end] == line[start] {
				end++
			}
			if run := end - start; run >= 5 {
				score += 3 + run - 5
			}
			start = end
		}
		for k := 0; k+11 <= n; k++ { // rule 3: 1:1:3:1:1 and four light, either way
			fwd, back := true, true
			for i := 0; i < 11; i++ {
				fwd = fwd && line[k+i] == finder[i]
				back = back && line[k+10-i] == finder[i]
			}
			if fwd {
				score += 40
			}
			if back {
				score += 40
			}
		}
	}
	dark := 0
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if g[y][x] {
				dark++
			}
			if y+1 < n && x+1 < n && g[y][x] == g[y][x+1] && g[y][x] == g[y+1][x] && g[y][x] == g[y+1][x+1] {
				score += 3 // rule 2: a 2x2 block of one colour
			}
		}
	}
	dev := dark*100/(n*n) - 50
	if dev < 0 {
		dev = -dev
	}
	return score + dev/5*10
}

// masked returns text's code in each of the eight masks, at level M, in
// the version Encode chooses.
func masked(t *testing.T, text string) []*coding.Code {
	t.Helper()
	got, err := Encode(text, qr.M)
	require.NoError(t, err)
	var enc coding.Encoding = coding.String(text)
	if coding.Num(text).Check() == nil {
		enc = coding.Num(text)
	} else if coding.Alpha(text).Check() == nil {
		enc = coding.Alpha(text)
	}
	var out []*coding.Code
	for m := coding.Mask(0); m < 8; m++ {
		p, err := coding.NewPlan(coding.Version((got.Size-17)/4), coding.M, m)
		require.NoError(t, err)
		c, err := p.Encode(enc)
		require.NoError(t, err)
		out = append(out, c)
	}
	return out
}

var referenceTexts = []string{
	"upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD20260115120000K7QX2M9A&tn=Tea&cu=INR",
	"12345", "HELLO WORLD", "upi://pay?pa=a@b&am=1.00", "x",
}

// TestPenaltyMatchesTheReference: Penalty agrees with the plain reference
// on every mask of real codes of several versions.
func TestPenaltyMatchesTheReference(t *testing.T) {
	for _, text := range referenceTexts {
		for m, c := range masked(t, text) {
			assert.Equal(t, referencePenalty(c), Penalty(c), "%q mask %d", text, m)
		}
	}
}

// TestEncodeKeepsTheFirstBestMask: of masks that tie for the lowest
// penalty, Encode keeps the first, as the standard's order has it.
func TestEncodeKeepsTheFirstBestMask(t *testing.T) {
	ties := 0
	for i := range 100 { // ORD-63 ties
		text := fmt.Sprintf("upi://pay?pa=m@ybl&tr=ORD-%d&am=%d.00", i, i%97+1)
		codes := masked(t, text)
		first, best := 0, Penalty(codes[0])
		tie := false
		for m, c := range codes[1:] {
			switch s := Penalty(c); {
			case s < best:
				first, best, tie = m+1, s, false
			case s == best:
				tie = true
			}
		}
		if tie {
			ties++
		}
		got, err := Encode(text, qr.M)
		require.NoError(t, err)
		assert.Equal(t, codes[first].Bitmap, got.Bitmap, text)
	}
	t.Logf("%d of 100 codes had masks tied for the lowest penalty", ties)
	require.Positive(t, ties, "the texts must include a tie for the test to mean anything")
}

// TestPNGWidthDrawsEveryModule: every pixel of the image is the module it
// falls in, dark or light, and every pixel outside the code is light, at
// one pixel a module and at whole scales with a margin left over; MaxWidth
// itself is allowed.
func TestPNGWidthDrawsEveryModule(t *testing.T) {
	const text = "upi://pay?pa=a@b&am=1.00"
	c, err := Encode(text, qr.M)
	require.NoError(t, err)
	need := c.Size + 2*quietZone
	_, err = PNGWidth(text, MaxWidth)
	require.NoError(t, err, "MaxWidth itself is allowed")
	for _, width := range []int{need, 100, 257} {
		b, err := PNGWidth(text, width)
		require.NoError(t, err, width)
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		scale := width / need
		offset := (width - c.Size*scale) / 2
		wrong := 0
		for py := 0; py < width; py++ {
			for px := 0; px < width; px++ {
				x, y := px-offset, py-offset
				dark := x >= 0 && y >= 0 && x < c.Size*scale && y < c.Size*scale && c.Black(x/scale, y/scale)
				r, _, _, _ := img.At(px, py).RGBA()
				if (r == 0) != dark {
					wrong++
				}
			}
		}
		assert.Zero(t, wrong, "pixels drawn wrong at width %d", width)
	}
}
