package qrcode

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"rsc.io/qr"
	"rsc.io/qr/coding"
)

// code builds a coding.Code from rows of '#' (dark) and '.' (light).
func code(rows ...string) *coding.Code {
	n := len(rows)
	stride := (n + 7) / 8
	c := &coding.Code{Size: n, Stride: stride, Bitmap: make([]byte, n*stride)}
	for y, r := range rows {
		for x, ch := range r {
			if ch == '#' {
				c.Bitmap[y*stride+x/8] |= 1 << uint(7-x&7)
			}
		}
	}
	return c
}

func TestLinePenalty(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"#.#.#.#.#.#", 0},
		{"#####.#.#.#", 3},       // one run of 5
		{"#######.#.#", 5},       // run of 7: 3 + 2
		{"#.###.#....", 40},      // finder with 4 light after (a light run of 4 scores nothing)
		{"....#.###.#", 40},      // finder with 4 light before
		{"#.###.#.....", 40 + 3}, // the same, and a light run of 5
		{"#.#.#.#.#.#.", 0},
	}
	for _, tt := range tests {
		got := linePenalty(len(tt.line), func(k int) bool { return tt.line[k] == '#' })
		assert.Equal(t, tt.want, got, tt.line)
	}
}

func TestPenaltyBlocksAndBalance(t *testing.T) {
	// All light 2x2: one block of one colour, and a dark share of 0% (50 off: +100).
	assert.Equal(t, 3+100, Penalty(code("..", "..")))
	// Checkerboard: no runs, no blocks, exactly half dark.
	assert.Equal(t, 0, Penalty(code("#.#.", ".#.#", "#.#.", ".#.#")))
}

func TestEncodePicksLowestPenaltyMask(t *testing.T) {
	for _, text := range []string{
		"upi://pay?pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=ORD20260115120000K7QX2M9A&tn=Tea&cu=INR",
		"12345",
		"HELLO WORLD",
	} {
		got, err := Encode(text, qr.M)
		require.NoError(t, err)
		gotScore := Penalty(&coding.Code{Bitmap: got.Bitmap, Size: got.Size, Stride: got.Stride})
		plain, err := qr.Encode(text, qr.M) // rsc.io/qr: mask 0 always
		require.NoError(t, err)
		require.Equal(t, plain.Size, got.Size, "same version")
		assert.LessOrEqual(t, gotScore, Penalty(&coding.Code{Bitmap: plain.Bitmap, Size: plain.Size, Stride: plain.Stride}), text)
		// The chosen mask is the best of all eight.
		for m, c := range masked(t, text) {
			assert.LessOrEqual(t, gotScore, Penalty(c), "mask %d", m)
		}
	}
}

func TestEncodeTooLong(t *testing.T) {
	_, err := Encode(string(bytes.Repeat([]byte("x"), 4000)), qr.H)
	assert.ErrorContains(t, err, "too long")
	// MaxText digits fit a version 40 code at level L; one more is refused
	// by its length.
	c, err := Encode(string(bytes.Repeat([]byte("7"), MaxText)), qr.L)
	require.NoError(t, err)
	assert.Equal(t, 177, c.Size)
	_, err = Encode(string(bytes.Repeat([]byte("7"), MaxText+1)), qr.L)
	assert.Equal(t, errTooLong, err)
}

func TestPNG(t *testing.T) {
	b, err := PNG("upi://pay?pa=a@b&am=1.00", 4)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Greater(t, img.Bounds().Dx(), 21*4)
	_, err = PNG(string(bytes.Repeat([]byte("x"), 4000)), 4)
	assert.Error(t, err)
}

// TestPNGWidth: the image is width pixels a side, the code at the largest
// whole scale with at least the quiet zone; too small or too large a width,
// or text no code holds, is an error.
func TestPNGWidth(t *testing.T) {
	b, err := PNGWidth("upi://pay?pa=a@b", 100)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 100, 100), img.Bounds())
	c, err := Encode("upi://pay?pa=a@b", qr.M)
	require.NoError(t, err)
	need := c.Size + 2*quietZone
	_, err = PNGWidth("upi://pay?pa=a@b", need)
	assert.NoError(t, err, "one pixel a module")
	for _, bad := range []int{need - 1, 0, -5, MaxWidth + 1} {
		_, err = PNGWidth("upi://pay?pa=a@b", bad)
		assert.ErrorContains(t, err, "pixels: this code needs", bad)
	}
	_, err = PNGWidth(strings.Repeat("x", 5000), 512)
	assert.Error(t, err)
}

// TestWidth: the code's modules and four quiet modules a side, the width
// PNG draws at one pixel a module; text no code holds is an error.
func TestWidth(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"upi://pay?pa=a@b", 25 + 8},                                       // version 2: 16 bytes, 14 fit version 1 at level M
		{"upi://pay?pa=a@b&am=1.00&tn=" + strings.Repeat("x", 40), 37 + 8}, // version 5
	}
	for _, tt := range tests {
		got, err := Width(tt.text)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.text)
		b, err := PNG(tt.text, 3)
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, 3*got, img.Bounds().Dx(), "PNG at 3 pixels a module")
	}
	_, err := Width(strings.Repeat("x", 5000))
	assert.Equal(t, errTooLong, err)
}
