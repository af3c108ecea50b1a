package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	pub    = "pk_live_a"
	secret = "sk_live_???>" // its pair's base64 holds '/' and '+'-free padding
)

// everyForm lists each form of the pair as written, percent-encoded and
// JSON-escaped, as encoders write them.
func everyForm(t *testing.T, publicKey, secretKey string) []string {
	t.Helper()
	pair := []byte(publicKey + ":" + secretKey)
	bases := []string{
		BasicAuth(publicKey, secretKey),
		base64.StdEncoding.EncodeToString(pair), base64.RawStdEncoding.EncodeToString(pair),
		base64.URLEncoding.EncodeToString(pair), base64.RawURLEncoding.EncodeToString(pair),
		secretKey,
	}
	var out []string
	for _, b := range bases {
		j, err := json.Marshal(b)
		require.NoError(t, err)
		out = append(out, b,
			url.QueryEscape(b), url.PathEscape(b), lowerHex(url.QueryEscape(b)),
			string(j[1:len(j)-1]),            // Go: \u003c \u003e \u0026
			strings.ReplaceAll(b, "/", `\/`), // PHP's json_encode
			jsonEscapeAll(b, `\u00%02X`),     // every non-alphanumeric escaped
			jsonEscapeAll(b, `\u00%02x`),
		)
	}
	return out
}

// lowerHex writes the hex digits of s's percent escapes in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = bytes.ToLower(b[i+1 : i+2])[0], bytes.ToLower(b[i+2 : i+3])[0]
		}
	}
	return string(b)
}

func jsonEscapeAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			b.WriteByte(s[i])
		} else {
			fmt.Fprintf(&b, format, s[i])
		}
	}
	return b.String()
}

func TestEveryFormIsFound(t *testing.T) {
	t.Parallel()
	f := New(pub, secret)
	for _, form := range everyForm(t, pub, secret) {
		if form == "" {
			continue
		}
		for _, ctx := range []string{"%s", "x %s y", "k=%s&z", `"%s"`, "<b>%s</b>", "line\n%s.", "(%s)"} {
			in := fmt.Sprintf(ctx, form)
			got := f.Text(in)
			assert.Equal(t, fmt.Sprintf(ctx, Mark), got, "form %q in %q", form, ctx)
			assert.Equal(t, fmt.Sprintf(ctx, Mark), string(f.Bytes([]byte(in))), "form %q in %q", form, ctx)
		}
	}
}

func TestFormsInJSON(t *testing.T) {
	t.Parallel()
	f := New(pub, secret)
	auth := BasicAuth(pub, secret)
	pair := strings.TrimPrefix(auth, "Basic ")
	require.Contains(t, pair, "/")
	escaped := strings.ReplaceAll(pair, "/", `\/`)
	in := `{"status":true,"msg":"you sent ` + auth + ` (` + escaped + `, sk_live_???\u003e)","data":{"intent":"upi://pay?pa=a@b&tn=` +
		escaped + `","phonepe":"phonepe://pay?k=` + url.QueryEscape(pair) + `","UTR":"` + secret + `","amount":"499.00"}}`
	out := f.Bytes([]byte(in))
	require.True(t, json.Valid(out), "%s", out)
	assert.JSONEq(t, `{"status":true,"msg":"you sent [REDACTED] ([REDACTED], [REDACTED])","data":{"intent":"upi://pay?pa=a@b&tn=[REDACTED]",`+
		`"phonepe":"phonepe://pay?k=[REDACTED]","UTR":"[REDACTED]","amount":"499.00"}}`, string(out))
	// Keys: every form but the bare secret.
	assert.JSONEq(t, `{"[REDACTED]":1,"sk_live_???>":2}`, string(f.Bytes([]byte(`{"`+auth+`":1,"sk_live_???>":2}`))))
}

// TestShortAndCommonSecrets: a secret that is one character or a word the
// service itself sends changes no answer that does not hold it as a value.
func TestShortAndCommonSecrets(t *testing.T) {
	t.Parallel()
	answers := []string{
		`{"status":true,"statusCode":200,"msg":"Payment intent created","data":{"orderId":"utz_65a4f3c2b1d0e","amount":"499.00",` +
			`"intent":"upi://pay?pa=merchant@upi&pn=Shop&am=499.00&tr=utz_65a4f3c2b1d0e&cu=INR","dynamicQR":"data:image/png;base64,iVBORw0KGgo+/=","expiry":"2025-01-15 15:35:00"}}`,
		`{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`,
		`{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"Transaction is successful","data":{"amount":1.08,"UTR":"412345678901","order_id":"ORD-1"}}`,
		`{"status":false,"message":"Authorization header is required"}`,
		"<html><body>502 Bad Gateway</body></html>",
		"",
	}
	for _, sk := range []string{"a", "e", "1", "2", "0", ":", `"`, "{", "}", ",", "\\", "/", "=", "+", "%", "status", "true", "false",
		"null", "msg", "statusCode", "amount", "Basic", "utz", "ORD", "Shop1", "0KGgo"} {
		f := New("pk", sk)
		for _, a := range answers {
			assert.Equal(t, a, string(f.Bytes([]byte(a))), "secret %q", sk)
			if !json.Valid([]byte(a)) {
				assert.Equal(t, a, f.Text(a), "secret %q", sk)
			}
		}
	}
	// A secret that is a whole word of the answer is found there: the
	// answer holds it. JSON stays JSON.
	for _, sk := range []string{"pay", "INR", "upi", "data", "base64"} {
		out := New("pk", sk).Bytes([]byte(answers[0]))
		assert.True(t, json.Valid(out), "%s", out)
		assert.Contains(t, string(out), Mark, sk)
	}
	// Where such a secret is a whole value, it is one.
	assert.Equal(t, `{"msg":"[REDACTED]","n":1}`, string(New("pk", "a").Bytes([]byte(`{"msg":"a","n":1}`))))
	assert.Equal(t, "key [REDACTED] here", New("pk", "status").Text("key status here"))
}

func TestUnchangedIsSame(t *testing.T) {
	t.Parallel()
	f := New(pub, secret)
	b := []byte(`{"status":true,"msg":"sk_live_ is not it"}`)
	out := f.Bytes(b)
	assert.Equal(t, &b[0], &out[0], "no copy when nothing is found")
	var zero *Filter
	assert.Equal(t, "x", zero.Text("x"))
	assert.Equal(t, b, (&Filter{}).Bytes(b))
	assert.Equal(t, "sk", New("pk", "").Text("sk"), "no secret, nothing to hide")
}

func TestTokenBoundaries(t *testing.T) {
	t.Parallel()
	f := New("pk", "abc")
	for in, want := range map[string]string{
		"xabc":        "xabc",
		"abcx":        "abcx",
		"_abc":        "_abc",
		"abc-":        "abc-",
		"abc.":        "[REDACTED].",
		"k=abc&":      "k=[REDACTED]&",
		"pk:abc":      "pk:[REDACTED]",
		"a+abc":       "a+[REDACTED]",
		"pk%3Aabc":    "pk%3A[REDACTED]",
		`x\u003aabc`:  `x\u003a[REDACTED]`,
		`x\nabc`:      `x\n[REDACTED]`,
		`x\\nabc`:     `x\\nabc`,
		`x\x1babc`:    `x\x1b[REDACTED]`,
		"abc abc":     "[REDACTED] [REDACTED]",
		"https://abc": "https://[REDACTED]",
		"%61bc":       "[REDACTED]", // an escaped letter is the letter
		"%61b":        "%61b",
	} {
		assert.Equal(t, want, f.Text(in), in)
	}
}

func TestEscapesInAForm(t *testing.T) {
	t.Parallel()
	f := New("pk", "a%b c")
	for in, want := range map[string]string{
		"x a%b c y":           "x [REDACTED] y",
		"x a%25b%20c y":       "x [REDACTED] y",
		"x a%25b+c y":         "x [REDACTED] y",
		`x a\u0025b\u0020c y`: "x [REDACTED] y",
		"x a%2":               "x a%2",
	} {
		assert.Equal(t, want, f.Text(in), in)
	}
	u := New("pk", "é/ü")
	assert.Equal(t, "[REDACTED]", u.Text(`\u00e9\/\u00fc`))
	assert.Equal(t, "[REDACTED]", u.Text(url.QueryEscape("é/ü")))
	assert.Equal(t, `\ud800`, u.Text(`\ud800`))
}

func TestOverlappingFormsOneMark(t *testing.T) {
	t.Parallel()
	// The header holds the pair: one mark, not two.
	f := New(pub, secret)
	assert.Equal(t, "got [REDACTED].", f.Text("got "+BasicAuth(pub, secret)+"."))
}

func TestTouchingFormsTwoMarks(t *testing.T) {
	t.Parallel()
	// Two forms that touch but do not overlap are two credentials.
	f := New("pk", ".x.")
	assert.Equal(t, "[REDACTED][REDACTED]", f.Text(".x..x."))
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Basic [REDACTED]", Authorization(BasicAuth("a", "b")))
	assert.Equal(t, "Bearer [REDACTED]", Authorization(" Bearer xyz "))
	assert.Equal(t, Mark, Authorization("opaque"))
	assert.Equal(t, Mark, Authorization(""))
}

func TestHeader(t *testing.T) {
	t.Parallel()
	f := New(pub, secret)
	h := http.Header{
		"Authorization":       {BasicAuth(pub, secret)},
		"Proxy-Authorization": {"Basic zzz"},
		"X-Echo":              {"k=" + secret, "clean"},
	}
	got := f.Header(h)
	assert.Equal(t, http.Header{
		"Authorization":       {"Basic [REDACTED]"},
		"Proxy-Authorization": {"Basic [REDACTED]"},
		"X-Echo":              {"k=[REDACTED]", "clean"},
	}, got)
	assert.Equal(t, BasicAuth(pub, secret), h.Get("Authorization"), "the input is not changed")
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := New(pub, secret).Writer(&buf)
	n, err := fmt.Fprintf(w, "secret %s\n", secret)
	require.NoError(t, err)
	assert.Equal(t, len("secret "+secret+"\n"), n)
	assert.Equal(t, "secret [REDACTED]\n", buf.String())
	_, err = New(pub, secret).Writer(failWriter{}).Write([]byte("x"))
	assert.Error(t, err)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("closed") }

func TestFilterNeverPrintsItsForms(t *testing.T) {
	t.Parallel()
	f := New(pub, secret)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "f", f)
	j, err := json.Marshal(struct{ F *Filter }{f})
	require.NoError(t, err)
	for _, s := range []string{fmt.Sprint(f), fmt.Sprintf("%+v", f), fmt.Sprintf("%#v", f), fmt.Sprintf("%s", f), logs.String(), string(j)} {
		assert.NotContains(t, s, "sk_live")
		assert.Contains(t, s, "redact.Filter")
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "abcd", longestAlnumRun("ab/abcd+x"))
	assert.Equal(t, "", longestAlnumRun("/+="))
	assert.Equal(t, []string{"ab"}, anchors([]form{{text: "xxabyy"}, {text: "ab"}}))
	assert.Equal(t, []string{""}, anchors([]form{{text: "::"}, {text: "ab"}}))
	f := New("pk", "sk_live_1234567890")
	assert.Len(t, f.s.anchors, 2, "the pair's four encodings share one anchor; the secret has its own")
}

// FuzzBytes: the filter never breaks JSON, never changes text in which it
// finds nothing, and leaves no form as a token behind.
func FuzzBytes(f *testing.F) {
	f.Add("a", `{"status":true,"msg":"a b"}`)
	f.Add("status", `{"status":true,"statusCode":"200"}`)
	f.Add("sk_live_???>", "you sent sk_live_???\\u003e")
	f.Add("x/y", `{"a":"x\/y","b":[1,"x%2Fy"]}`)
	f.Add("%", "%25%")
	f.Fuzz(func(t *testing.T, sk, text string) {
		if sk == "" {
			return
		}
		fl := New("pk", sk)
		if fl.find(Mark, false) != nil {
			return // a secret found in the mark itself: not a fixed point
		}
		in := []byte(text)
		out := fl.Bytes(in)
		if json.Valid(in) {
			if !json.Valid(out) {
				t.Fatalf("valid JSON became invalid: %q -> %q", in, out)
			}
		} else if fl.findAll(text, false) == nil && !bytes.Equal(in, out) {
			t.Fatalf("nothing found but the text changed: %q -> %q", in, out)
		}
		if !json.Valid(in) {
			for _, sp := range fl.findAll(string(out), false) {
				if !touchesMark(string(out), sp) {
					t.Fatalf("a form left behind: %q -> %q at %v", in, out, sp)
				}
			}
		}
		if fl.Text(text) == text && !json.Valid(in) && !bytes.Equal(in, out) {
			t.Fatalf("Text and Bytes disagree on %q", in)
		}
	})
}

// touchesMark reports whether sp lies in or next to a Mark: a form found
// only because a mark now stands beside it, not one the filter missed.
func touchesMark(s string, sp span) bool {
	return strings.HasSuffix(s[:sp.start], Mark) || strings.HasPrefix(s[sp.end:], Mark) ||
		strings.Contains(s[max(0, sp.start-len(Mark)):min(len(s), sp.end+len(Mark))], Mark)
}

// TestEdges pins the character classes, escapes and bounds the filter's
// decisions turn on (mutation testing found them unpinned).
func TestEdges(t *testing.T) {
	t.Parallel()
	for c, want := range map[byte]bool{'`': false, 'a': true, 'z': true, '{': false, '@': false, 'A': true, 'Z': true,
		'[': false, '/': false, '0': true, '9': true, ':': false} {
		assert.Equal(t, want, isAlnum(c), "%q", c)
	}
	for c, want := range map[byte]byte{'0': 0, '9': 9, 'a': 10, 'f': 15, 'A': 10, 'F': 15} {
		assert.Equal(t, want, unhex(c), "%q", c)
	}
	for s, want := range map[string]bool{
		"%3A": true, "x%3A": true, `\u003a`: true, `\x1b`: true, `\n`: true, `\a`: true, "a\\n": true,
		`\\n`: false, `\q`: false, "%3": false, "": false, "n": false,
	} {
		assert.Equal(t, want, endsEscape(s), "%q", s)
	}
	for _, tt := range []struct {
		s   string
		dec string
		n   int
	}{
		{`\`, "", 0}, {`\u00`, "", 0}, {`\u002`, "", 0}, {`\u0025`, "%", 6}, {`\u0041`, "", 0}, {`\u007f`, "\x7f", 6},
		{`\u0141`, "Ł", 6}, {`\ud7ff`, "\ud7ff", 6}, {`\ud800`, "", 0}, {`\udfff`, "", 0}, {`\ue000`, "\ue000", 6},
		{`\/`, "/", 2}, {`\"`, `"`, 2}, {`\\`, `\`, 2}, {`\n`, "", 0}, {"%2F", "/", 3}, {"%41", "", 0}, {"%4", "", 0},
		{"+", " ", 1}, {"x", "", 0},
	} {
		dec, n := unescape(tt.s, 0)
		assert.Equal(t, tt.dec, dec, "%q", tt.s)
		assert.Equal(t, tt.n, n, "%q", tt.s)
	}
	// A form that begins with a space may begin as a form body's '+'.
	assert.Equal(t, "a=[REDACTED]", New("pk", " x").Text("a=+x"))
	// Text that ends inside a form holds no form, also when the form's
	// anchor stands earlier in it.
	assert.Equal(t, "x abc", New("pk", "abcdef").Text("x abc"))
	assert.Equal(t, "y. yz x-y", New("pk", "x-yz").Text("y. yz x-y"))
	// A key with space before its colon is a key: the bare secret stays.
	assert.Equal(t, `{"sk_live_x" : 1}`, string(New("pk", "sk_live_x").Bytes([]byte(`{"sk_live_x" : 1}`))))
	assert.Equal(t, `{"a":"[REDACTED]"}`, string(New("pk", "sk_live_x").Bytes([]byte(`{"a":"sk_live_x"}`))))
}

// escapeEvery writes each byte of s with format (a JSON \u escape, an HTML
// character reference or a percent escape), letters and digits too.
func escapeEvery(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// mixed writes s's bytes in turn as themselves, \u00XX, &#NN;, %XX and
// &#xHH;.
func mixed(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch i % 5 {
		case 0:
			b.WriteByte(s[i])
		case 1:
			fmt.Fprintf(&b, `\u%04x`, s[i])
		case 2:
			fmt.Fprintf(&b, "&#%d;", s[i])
		case 3:
			fmt.Fprintf(&b, "%%%02X", s[i])
		case 4:
			fmt.Fprintf(&b, "&#x%x;", s[i])
		}
	}
	return b.String()
}

// TestEveryCharacterEscaped: a form written with every character escaped,
// letters and digits included, as JSON \u escapes, HTML decimal or hex
// character references or percent escapes, or a mix of them, is found in
// text and in JSON; so is one whose punctuation alone is written as HTML
// references (&#43; for '+', named ones too).
func TestEveryCharacterEscaped(t *testing.T) {
	t.Parallel()
	const sk = "sk+li/ve=9"
	f := New(pub, sk)
	var forms []string
	for _, b := range []string{BasicAuth(pub, sk), base64.StdEncoding.EncodeToString([]byte(pub + ":" + sk)), sk} {
		forms = append(forms,
			escapeEvery(b, `\u%04x`), escapeEvery(b, `\u%04X`), escapeEvery(b, "&#%d;"), escapeEvery(b, "&#x%x;"),
			escapeEvery(b, "&#X%02X"), escapeEvery(b, "&#%03d"), escapeEvery(b, "%%%02x"), mixed(b),
			strings.NewReplacer("+", "&#43;", "/", "&#47;", "=", "&#61;", ":", "&#58;").Replace(b),
			strings.NewReplacer("+", "&plus;", "/", "&sol;", "=", "&equals;", ":", "&colon;").Replace(b),
		)
	}
	for _, form := range forms {
		for _, ctx := range []string{"%s", "x %s y", "<p>%s</p>", "k=%s&z"} {
			in := fmt.Sprintf(ctx, form)
			assert.Equal(t, fmt.Sprintf(ctx, Mark), f.Text(in), "form %q in %q", form, ctx)
			assert.Equal(t, fmt.Sprintf(ctx, Mark), string(f.Bytes([]byte(in))), "form %q in %q", form, ctx)
		}
		if strings.Contains(form, `\u`) && !strings.Contains(form, "&") {
			in := `{"status":false,"msg":"you sent ` + form + `","data":{"k":"` + form + `"}}`
			out := f.Bytes([]byte(in))
			require.True(t, json.Valid(out), "%s", out)
			assert.JSONEq(t, `{"status":false,"msg":"you sent [REDACTED]","data":{"k":"[REDACTED]"}}`, string(out), form)
		}
	}
	// In a JSON string, a reference is text to decode too.
	in := `{"msg":"<p>` + strings.ReplaceAll(BasicAuth(pub, sk), "+", "&#43;") + `</p>"}`
	assert.JSONEq(t, `{"msg":"<p>[REDACTED]</p>"}`, string(f.Bytes([]byte(in))))
}

// TestWideEscapesLeaveOtherTextAlone: escapes and references that spell
// no form change nothing, and cost no copy: a link's '&', a percent escape
// of punctuation, Go's \u0026, references that are not characters.
func TestWideEscapesLeaveOtherTextAlone(t *testing.T) {
	t.Parallel()
	f := New(pub, "sk+li/ve=9")
	for _, in := range []string{
		`{"intent":"upi://pay?pa=a@b&am=1.00&tn=a%20b\u0026c","msg":"&#65;&#x42;%43\u0044 &amp; &plus; &#0; &#xD800; &#99999999; &#; &#x; &bogus;"}`,
		"&#65;&#x42;%43\\u0044 &#",
		"%6", "\\u00", "&#x110000;",
	} {
		assert.Equal(t, in, f.Text(in))
		b := []byte(in)
		out := f.Bytes(b)
		assert.Equal(t, &b[0], &out[0], "no copy: %s", in)
	}
	assert.False(t, hasWide("%41"[:2]))
	assert.True(t, hasWide([]byte("%41")))
	assert.False(t, hasWide(`\u002b %2B &x`))
}

// TestDecodeWide: each byte of the decoded text maps back to the escape it
// came from.
func TestDecodeWide(t *testing.T) {
	t.Parallel()
	dec, from, to := decodeWide(`a\u0062&#99;%64&#xe9;&plus;f`)
	assert.Equal(t, "abcdé+f", dec)
	assert.Equal(t, []int{0, 1, 7, 12, 15, 15, 21, 27}, from)
	assert.Equal(t, []int{1, 7, 12, 15, 21, 21, 27, 28}, to)
}

// TestWideBounds pins the edges of the escapes decodeWide reads: where a
// reference's number ends, the code points it may stand for, escapes cut
// off at the end of the text.
func TestWideBounds(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"&#90;":          "Z",
		"&#48;&#57;":     "09",
		"&#x2f;&#X3A;":   "/:",
		"&#x10FFFF;":     "\U0010FFFF",
		"&#x110000;":     "&#x110000;",
		"&#xD7FF;":       "\ud7ff",
		"&#xD800;":       "&#xD800;",
		"&#xDFFF;":       "&#xDFFF;",
		"&#xE000;":       "\ue000",
		"&#00000065;":    "A",
		"&#000000065;":   "\x06" + "5;",
		"&#65":           "A",
		"&#x41x":         "Ax",
		"&plus;&plus":    "+&plus",
		"a&":             "a&",
		"&":              "&",
		`\u0041\u004`:    `A\u004`,
		`\u002f\u0030`:   `\u002f0`,
		"%2f%30%3":       "%2f0%3",
		"&#;&#x;&#a;&#0": "&#;&#x;&#a;&#0",
	} {
		dec, from, to := decodeWide(in)
		assert.Equal(t, want, dec, in)
		require.Len(t, from, len(dec), in)
		require.Len(t, to, len(dec), in)
		if len(dec) > 0 {
			assert.Equal(t, 0, from[0], in)
			assert.Equal(t, len(in), to[len(to)-1], in)
		}
		assert.Equal(t, want != in, hasWide(in), in)
		assert.Equal(t, want != in, hasWide([]byte(in)), in)
	}
}
