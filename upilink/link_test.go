package upilink

import (
	"bytes"
	"errors"
	"image/png"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/qrcode"
	"github.com/upicollect/upicollect-go/internal/upi"
	"rsc.io/qr"
)

func TestParseRealWorldLinks(t *testing.T) {
	tests := []struct {
		name      string
		link      string
		want      Link
		canonical string
	}{
		{
			name:      "generic intent",
			link:      "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_1&tn=Order%2042&cu=INR",
			want:      Link{Scheme: "upi", Target: "pay", PayeeVPA: "shop@okaxis", PayeeName: "Chai Shop", Amount: upicollect.Rupees(499), TxnRef: "ord_1", Note: "Order 42", Currency: "INR"},
			canonical: "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&cu=INR&tr=ord_1&tn=Order%2042",
		},
		{
			name:      "google pay form, plus for spaces, %40 in pa",
			link:      "tez://upi/pay?pa=shop%40okaxis&pn=Chai+Shop&am=1.08&cu=INR",
			want:      Link{Scheme: "tez", Target: "upi/pay", PayeeVPA: "shop@okaxis", PayeeName: "Chai Shop", Amount: 108, Currency: "INR"},
			canonical: "tez://upi/pay?pa=shop@okaxis&pn=Chai%20Shop&am=1.08&cu=INR",
		},
		{
			name: "phonepe, signed merchant QR with orgId and unknown gstIn",
			link: "phonepe://pay?pa=m@ybl&pn=M&mc=5411&mode=02&orgId=159761&sign=AbC%2B%2F%3D&tr=T1&gstIn=29ABCDE1234F1Z5&",
			want: Link{Scheme: "phonepe", Target: "pay", PayeeVPA: "m@ybl", PayeeName: "M", MerchantCode: "5411", Mode: "02", OrgID: "159761",
				Sign: "AbC+/=", TxnRef: "T1", Extra: url.Values{"gstIn": {"29ABCDE1234F1Z5"}}},
			canonical: "phonepe://pay?pa=m@ybl&pn=M&tr=T1&mc=5411&mode=02&orgid=159761&sign=AbC%2B%2F%3D&gstIn=29ABCDE1234F1Z5",
		},
		{
			name: "paytm, minimum amount, duplicate key keeps the first, empty value",
			link: "paytmmp://pay?PA=a.b@paytm&am=10&am=20&mam=5.5&tn=",
			want: Link{Scheme: "paytmmp", Target: "pay", PayeeVPA: "a.b@paytm", Amount: upicollect.Rupees(10), MinAmount: 550,
				names: []upi.Problem{{Param: "am", Want: "one am", Got: "am and am"}}},
			canonical: "paytmmp://pay?pa=a.b@paytm&am=10.00&mam=5.50",
		},
		{
			name:      "escaped characters in the note",
			link:      "upi://pay?pa=x@y&tn=a%26b%3Dc%23d%25e%2Bf",
			want:      Link{Scheme: "upi", Target: "pay", PayeeVPA: "x@y", Note: "a&b=c#d%e+f"},
			canonical: "upi://pay?pa=x@y&tn=a%26b%3Dc%23d%25e%2Bf",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.link)
			require.NoError(t, err)
			assert.Equal(t, &tt.want, got)
			assert.Equal(t, tt.canonical, got.String())
			again, err := Parse(got.String())
			require.NoError(t, err)
			// names records how the text wrote its names (a repeat), which
			// String writes canonically: the link itself must round-trip.
			got.names, again.names = nil, nil
			assert.Equal(t, got, again, "round trip")
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]string{
		"":                                      "link",
		"https://evil.example/pay?pa=a@b":       "link",
		"javascript:alert(1)//?pa=a@b":          "link",
		"upi://pay?pn=No%20Payee":               "pa",
		"upi://pay?pa=a@b&am=1.005":             "am",
		"upi://pay?pa=a@b&am=-1":                "am",
		"upi://pay?pa=a@b&mam=1e3":              "mam",
		"upi://pay?pa=a@b&tn=%zz":               "tn",
		"upi://pay?pa=a@b&am=99999999999999999": "am",
	}
	for link, param := range tests {
		_, err := Parse(link)
		var pe *ParseError
		require.ErrorAs(t, err, &pe, link)
		assert.Equal(t, param, pe.Param, link)
		assert.Contains(t, err.Error(), "upilink: "+param)
	}
}

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		link Link
		want []string // params flagged
	}{
		{"clean merchant link", Link{Scheme: "upi", PayeeVPA: "m@ybl", PayeeName: "Chai Shop", MerchantCode: "5411", TxnRef: "T1", Currency: "INR", Amount: 100}, nil},
		{"merchant without tr", Link{PayeeVPA: "m@ybl", MerchantCode: "5411"}, []string{"tr"}},
		{"tr without mc", Link{PayeeVPA: "m@ybl", TxnRef: "T1"}, []string{"mc"}},
		{"foreign currency", Link{PayeeVPA: "m@ybl", Currency: "USD"}, []string{"cu"}},
		{"mode 02 unsigned", Link{PayeeVPA: "m@ybl", Mode: "02"}, []string{"sign"}},
		{"mode 05 unsigned", Link{PayeeVPA: "m@ybl", Mode: "05"}, []string{"sign"}},
		{"mode 05 signed", Link{PayeeVPA: "m@ybl", Mode: "05", Sign: "x"}, nil},
		{"over the limit", Link{PayeeVPA: "m@ybl", Amount: upicollect.Rupees(100001), MinAmount: upicollect.Rupees(100001)}, []string{"am", "mam"}},
		{"at the limit", Link{PayeeVPA: "m@ybl", Amount: upicollect.Rupees(100000)}, nil},
		{"ampersand in name", Link{PayeeVPA: "m@ybl", PayeeName: "Tea & Co"}, []string{"pn"}},
		{"emoji in name", Link{PayeeVPA: "m@ybl", PayeeName: "Chai ☕🍵"}, []string{"pn"}},
		{"Hindi name is fine", Link{PayeeVPA: "m@ybl", PayeeName: "चाय"}, nil},
		{"the basic plane's last rune: one UTF-16 unit", Link{PayeeVPA: "m@ybl", PayeeName: "Chai \uffff"}, nil},
		{"the first rune past it: a surrogate pair", Link{PayeeVPA: "m@ybl", PayeeName: "Chai \U00010000"}, []string{"pn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range tt.link.Lint() {
				got = append(got, p.Param)
				assert.NotEmpty(t, p.Message)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestPNG: size is the image's width and height in pixels, as
// skip2/go-qrcode and `upicollect qr --size` mean it.
func TestPNG(t *testing.T) {
	for _, size := range []int{29 + 8, 100, 256, 512, 2048} {
		b, err := PNG("upi://pay?pa=shop@okaxis&am=1.00", size)
		require.NoError(t, err, size)
		assert.Equal(t, "\x89PNG", string(b[:4]))
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, size, cfg.Width, "width")
		assert.Equal(t, size, cfg.Height, "height")
	}
	for _, bad := range []int{-1, 0, 4, 36, 8193} {
		_, err := PNG("upi://pay?pa=shop@okaxis&am=1.00", bad)
		assert.Error(t, err, bad)
	}
	_, err := PNG(strings.Repeat("x", 5000), 512)
	assert.Error(t, err, "too long for any QR version")
}

// TestPNGModules: the code fills the image at the largest whole scale, the
// quiet zone at least four modules, the left-over pixels in the margin.
func TestPNGModules(t *testing.T) {
	b, err := PNG("upi://pay?pa=shop@okaxis&am=1.00", 300)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	dark := func(x, y int) bool { r, _, _, _ := img.At(x, y).RGBA(); return r < 0x8000 }
	first, last := -1, -1
	for x := 0; x < 300; x++ {
		for y := 0; y < 300; y++ {
			if dark(x, y) {
				if first < 0 {
					first = x
				}
				last = x
			}
		}
	}
	// A 29-module code (version 3) with the quiet zone is 37 modules: 8
	// pixels each, 296 pixels, 4 left over, 2 on each side.
	assert.Equal(t, 2+4*8, first, "left margin: 2 left over + 4 quiet modules")
	assert.Equal(t, 300-1-(2+4*8), last, "right margin")
}

func TestTerminalDrawsEveryModule(t *testing.T) {
	text := "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_1"
	c, err := qrcode.Encode(text, qr.M)
	require.NoError(t, err)
	out := Terminal(text)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	n := c.Size + 2*terminalQuiet
	require.Len(t, lines, (n+1)/2)
	for row, line := range lines {
		runes := []rune(line)
		require.Len(t, runes, n)
		for x, r := range runes {
			top := r == '█' || r == '▀'
			bottom := r == '█' || r == '▄'
			for dy, lightGot := range []bool{top, bottom} {
				y := 2*row + dy
				if y >= n {
					continue
				}
				lightWant := !c.Black(x-terminalQuiet, y-terminalQuiet)
				require.Equal(t, lightWant, lightGot, "module (%d,%d)", x, y)
			}
		}
	}
	assert.Equal(t, "", Terminal(strings.Repeat("x", 5000)))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"upi://pay?pa=a@b&am=1.00", "tez://upi/pay?pa=a%40b&pn=A+B", "upi://pay?pa=x@y&tn=%26&gstIn=1&",
		"z:?pa=." + strings.Repeat("\x91", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(l.String())
		if len(l.String()) > upi.MaxLen {
			// String escapes every non-ASCII byte as three, so a link that
			// fit a QR code may not once canonical; Parse then refuses it
			// for its length, and for nothing else.
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Param != "link" || !strings.Contains(pe.Problem, "longer than") {
				t.Fatalf("Parse(%q).String() is %d bytes, yet Parse gave %v", s, len(l.String()), err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, l.String(), err)
		}
		if l.Target == "" {
			l.Target = "pay"
		}
		if again.Target == "" {
			again.Target = "pay"
		}
		// Empty values are not written, so an Extra key with only empty
		// values disappears; compare the written forms instead.
		if again.String() != l.String() {
			t.Fatalf("round trip of %q: %q then %q", s, l.String(), again.String())
		}
	})
}

// TestLintFromText: what only the text shows (a repeated or variant name)
// and mam above am are linted by the SDK's one link-safety package.
func TestLintFromText(t *testing.T) {
	for link, want := range map[string][]string{
		"upi://pay?pa=m@ybl&am=10&AM=20":   {"am"},
		"upi://pay?pa=m@ybl&%61m=10&am=20": {"am", "am"},
		"upi://pay?pa=m@ybl&am=10&mam=11":  {"mam"},
		"upi://pay?pa=m@ybl&am=10&mam=10":  nil,
		"upi://pay?pa=m@ybl&cu=usd":        {"cu"},
	} {
		l, err := Parse(link)
		require.NoError(t, err, link)
		var got []string
		for _, p := range l.Lint() {
			got = append(got, p.Param)
		}
		assert.Equal(t, want, got, link)
	}
}

// TestParseBoundsAndEscapes: a link longer than a QR code holds is refused
// before it is parsed, and error text is bounded and escaped.
func TestParseBoundsAndEscapes(t *testing.T) {
	huge := "upi://pay?pa=a@b&tn=" + strings.Repeat("x", 4<<20)
	// Bytes, not allocations, are the cost that matters (a parsed 4 MiB
	// link cost 64 MiB), and the race detector adds allocations of its own.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		if _, err := Parse(huge); err == nil {
			t.Fatal("a 4 MiB link parsed")
		}
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(5*4096), "refused before parsing: a few bytes a call, not a copy of the link")
	_, err := Parse(huge)
	assert.Contains(t, err.Error(), "longer than 2953 bytes")
	assert.Less(t, len(err.Error()), 200)

	_, err = Parse("upi://pay?pa=a@b&am=\x1b[2J" + strings.Repeat("9", 100))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\x1b")
	assert.Contains(t, err.Error(), `\x1b[2J`)
	assert.Less(t, len(err.Error()), 200)
	_, err = Parse("upi://pay?pa=a@b&\x1b]0;x\x07%zz=1")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\x1b")
	_, err = Parse("intent://pay?pa=a@b#Intent;scheme=upi;end")
	assert.ErrorContains(t, err, `scheme "intent"`)
}

// TestHugeTextRefusedBeforeAllocating: PNG and Terminal refuse 16 MiB of
// text by its length, before they read or copy it (they allocated 96 MiB
// to refuse it); text just over what a QR code holds is refused the same
// way, and the longest that fits is still drawn.
func TestHugeTextRefusedBeforeAllocating(t *testing.T) {
	huge := strings.Repeat("x", 16<<20)
	// Bytes, not allocations, are the cost that matters, and the race
	// detector adds allocations of its own.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 5 {
		if _, err := PNG(huge, 256); err == nil {
			t.Fatal("16 MiB of text drawn as a PNG")
		}
		if Terminal(huge) != "" {
			t.Fatal("16 MiB of text drawn on a terminal")
		}
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(10*4096), "refused by length: a few bytes a call, not copies of the text")
	_, err := PNG(huge, 256)
	assert.EqualError(t, err, "upilink: PNG: qrcode: text too long to encode as QR")

	digits := strings.Repeat("7", 5596) // the most digits a level-M code holds
	assert.NotEmpty(t, Terminal(digits))
	assert.Empty(t, Terminal(digits+"7"))
	assert.Empty(t, Terminal(strings.Repeat("7", 7090)))
}
