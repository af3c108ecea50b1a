package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/upilink"
)

// TestUpilinkQRDecodes decodes upilink's PNG and its terminal drawing back
// to the link they encode.
func TestUpilinkQRDecodes(t *testing.T) {
	links := []string{
		"upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&cu=INR&tr=ord_1&tn=Order%2042",
		"tez://upi/pay?pa=m@ybl&pn=M&am=100000.00&tr=" + strings.Repeat("x", 80) + "&mc=5411",
	}
	for _, link := range links {
		img, err := upilink.PNG(link, 512)
		require.NoError(t, err)
		text, located, err := decodeQR(img)
		require.NoError(t, err, "PNG of %s", link)
		assert.Equal(t, link, text)
		logUnlocated(t, "PNG", located)

		text, located, err = decodeQR(rasterise(t, upilink.Terminal(link)))
		require.NoError(t, err, "terminal drawing of %s", link)
		assert.Equal(t, link, text)
		logUnlocated(t, "terminal", located)
	}
}

// rasterise draws half-block text as a PNG: each character is one module
// wide and two high, 8 pixels a module; a block is light, a space dark, as a
// dark terminal shows them, and a white margin stands for the screen around.
func rasterise(t *testing.T, drawing string) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(drawing, "\n"), "\n")
	const px, margin = 8, 32
	w := len([]rune(lines[0]))
	img := image.NewGray(image.Rect(0, 0, w*px+2*margin, 2*len(lines)*px+2*margin))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for row, line := range lines {
		for x, r := range []rune(line) {
			for dy, light := range []bool{r == '█' || r == '▀', r == '█' || r == '▄'} {
				c := color.Gray{Y: 0}
				if light {
					c.Y = 0xff
				}
				for yy := 0; yy < px; yy++ {
					for xx := 0; xx < px; xx++ {
						img.SetGray(margin+x*px+xx, margin+(2*row+dy)*px+yy, c)
					}
				}
			}
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}
