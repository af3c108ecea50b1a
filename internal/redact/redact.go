// Package redact removes a merchant's credentials from text: one list of the
// forms they take and one replacement, Mark. The SDK filters every answer,
// error and log record through it, the sandbox its request log, the CLI its
// output and --dry-run.
//
// The forms are the Authorization header value ("Basic " + base64 of
// "public:secret"), that pair in standard, raw, URL and raw-URL base64, and
// the secret key. Each is found as written, percent-encoded (any case, '+'
// for a space), with JSON escapes (\uXXXX, \/, \\, \") and with HTML
// character references (&#43;, &#x2B;, &plus;), in any mix, also where
// every character, letters and digits included, is escaped. Text with no
// escape that stands for a letter or digit, and no character reference,
// is ruled out by a cheap search for the forms' letters and digits before
// any decoding.
//
// A form counts only as a whole token: not where a letter, digit, '_' or
// '-' continues it on either side. So a short or common-word secret ("a",
// "status") does not change text that merely contains those letters, and a
// JSON answer keeps its structure: only string values are searched, and
// object keys for every form but the bare secret. Text in which no form
// occurs comes back unchanged, the same string or slice.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"
)

// Mark replaces every credential found.
const Mark = "[REDACTED]"

// BasicAuth returns the Authorization header value for a key pair: "Basic "
// and the standard base64 of "public:secret".
func BasicAuth(publicKey, secretKey string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(publicKey+":"+secretKey))
}

// Authorization returns an Authorization header value with its credentials
// replaced: the scheme is kept ("Basic [REDACTED]"), everything else goes.
func Authorization(value string) string {
	scheme, _, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || scheme == "" {
		return Mark
	}
	return scheme + " " + Mark
}

// Filter finds the credentials of one key pair. The zero Filter and a nil
// *Filter find nothing. It is immutable and safe for concurrent use, and it
// never prints what it searches for: every fmt verb, slog and JSON show
// only its type.
type Filter struct {
	// s is behind a pointer below the top level, which fmt prints as an
	// address under every verb, even a wrong one on a struct holding a
	// *Filter.
	s *set
}

type set struct {
	forms []form
	// anchors are runs of letters and digits, one of which every form
	// contains as written: text holding none of them holds no form.
	anchors     []string
	anchorBytes [][]byte // anchors as bytes, converted once
}

type form struct {
	text   string
	inKeys bool // searched in JSON object keys too
}

// New returns the Filter for a key pair. An empty secret key gives a
// Filter that finds nothing: there is no credential to hide.
func New(publicKey, secretKey string) *Filter {
	if secretKey == "" {
		return &Filter{}
	}
	pair := []byte(publicKey + ":" + secretKey)
	forms := []form{{text: BasicAuth(publicKey, secretKey), inKeys: true}}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		forms = append(forms, form{text: enc.EncodeToString(pair), inKeys: true})
	}
	// The bare secret is not searched in keys: a common-word secret
	// ("status") would otherwise break every answer's envelope.
	forms = dedupe(append(forms, form{text: secretKey}))
	st := &set{forms: forms, anchors: anchors(forms)}
	for _, a := range st.anchors {
		st.anchorBytes = append(st.anchorBytes, []byte(a))
	}
	return &Filter{s: st}
}

// dedupe drops repeated forms (a raw and a padded encoding are equal when
// no padding is needed), keeping the first, and orders them longest first.
func dedupe(fs []form) []form {
	seen := map[string]int{}
	var out []form
	for _, f := range fs {
		if i, ok := seen[f.text]; ok {
			out[i].inKeys = out[i].inKeys || f.inKeys
			continue
		}
		seen[f.text] = len(out)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// anchors returns, for the forms, the fewest runs of letters and digits
// such that each form contains one: the longest run of each form, less any
// run that contains another (text holding the longer holds the shorter).
// A form with no letter or digit gives the empty anchor, which every text
// holds.
func anchors(fs []form) []string {
	var runs []string
	for _, f := range fs {
		runs = append(runs, longestAlnumRun(f.text))
	}
	sort.Slice(runs, func(i, j int) bool { return len(runs[i]) < len(runs[j]) })
	var out []string
	for _, r := range runs {
		covered := false
		for _, o := range out {
			if strings.Contains(r, o) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

func longestAlnumRun(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isAlnum(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

// mayHold reports whether text may hold a form: it holds an anchor.
func (f *Filter) mayHold(text []byte) bool {
	return f.anchored(func(i int) bool { return bytes.Contains(text, f.s.anchorBytes[i]) })
}

// mayHoldString is mayHold for a string, without converting it.
func (f *Filter) mayHoldString(text string) bool {
	return f.anchored(func(i int) bool { return strings.Contains(text, f.s.anchors[i]) })
}

// anchored reports whether contains finds any of the anchors, by index.
func (f *Filter) anchored(contains func(anchor int) bool) bool {
	if f == nil || f.s == nil {
		return false
	}
	for i := range f.s.anchors {
		if contains(i) {
			return true
		}
	}
	return false
}

// Text returns s with every credential replaced by Mark; s itself when it
// holds none.
func (f *Filter) Text(s string) string {
	spans := f.findAll(s, false)
	if spans == nil {
		return s
	}
	return replace(s, spans)
}

// findAll returns the spans of s that hold a form, as find does, and
// those that hold one only once the escapes find does not read are
// decoded: a letter or digit written as %XX or \uXXXX, and HTML character
// references (see decodeWide). nil when there are none, or f is empty.
func (f *Filter) findAll(s string, inKey bool) []span {
	if f == nil || f.s == nil {
		return nil
	}
	var spans []span
	if f.mayHoldString(s) {
		spans = f.find(s, inKey)
	}
	if !hasWide(s) {
		return spans
	}
	dec, from, to := decodeWide(s)
	if !f.mayHoldString(dec) {
		return spans
	}
	for _, sp := range f.find(dec, inKey) {
		spans = append(spans, span{from[sp.start], to[sp.end-1]})
	}
	return merge(spans)
}

// Bytes returns b with every credential replaced by Mark: b itself, not a
// copy, when it holds none. Valid JSON stays valid JSON with the same
// structure: only its strings are searched (keys for every form but the
// bare secret), decoded first, and a string that held a form is written
// back re-encoded. Any other text is searched as Text does.
func (f *Filter) Bytes(b []byte) []byte {
	if !f.mayHold(b) && !hasWide(b) {
		return b
	}
	if json.Valid(b) {
		return f.jsonBytes(b)
	}
	s := string(b)
	spans := f.findAll(s, false)
	if spans == nil {
		return b
	}
	return []byte(replace(s, spans))
}

// jsonBytes is Bytes for a valid JSON document.
func (f *Filter) jsonBytes(b []byte) []byte {
	var out []byte
	done := 0 // b[:done] is in out already
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := stringEnd(b, i)
		lit := b[i : end+1]
		i = end
		if !f.mayHold(lit) && !hasWide(lit) {
			continue
		}
		var s string
		if json.Unmarshal(lit, &s) != nil {
			continue // cannot happen in valid JSON
		}
		spans := f.findAll(s, isKey(b, end+1))
		if spans == nil {
			continue
		}
		out = append(out, b[done:i-len(lit)+1]...)
		out = appendJSONString(out, replace(s, spans))
		done = end + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// stringEnd returns the index of the quote that closes the JSON string
// opened at b[start].
func stringEnd(b []byte, start int) int {
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1
}

// isKey reports whether the string that ended before b[i] is an object key:
// a ':' follows it.
func isKey(b []byte, i int) bool {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

func appendJSONString(out []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// span is a found credential: text[start:end].
type span struct{ start, end int }

// find returns the spans of s that hold a form as a token, merged where
// they overlap, in order; nil when there are none. inKey searches only the
// forms that count in JSON keys.
func (f *Filter) find(s string, inKey bool) []span {
	var spans []span
	for _, fm := range f.s.forms {
		if inKey && !fm.inKeys {
			continue
		}
		for i := 0; i < len(s); i++ {
			if !mayStart(s[i], fm.text[0]) {
				continue
			}
			end := match(s, i, fm.text)
			if end < 0 || !tokenStart(s, i, fm.text[0]) || !tokenEnd(s, end, fm.text[len(fm.text)-1]) {
				continue
			}
			spans = append(spans, span{i, end})
		}
	}
	return merge(spans)
}

// merge orders spans and merges those that overlap; nil for none.
func merge(spans []span) []span {
	if spans == nil {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// mayStart reports whether text byte c may begin a form whose first byte is
// first: as itself or as the start of an escape.
func mayStart(c, first byte) bool {
	return c == first || (!isAlnum(first) && (c == '%' || c == '\\' || c == '+'))
}

// match returns where form, read from s[i], ends in s, or -1. Each byte of
// form matches itself or, when it is not a letter or digit, an escape that
// decodes to it.
func match(s string, i int, form string) int {
	for k := 0; k < len(form); {
		if i >= len(s) {
			return -1
		}
		if !isAlnum(form[k]) {
			if dec, n := unescape(s, i); n > 0 && strings.HasPrefix(form[k:], dec) {
				// An escape and a literal may both fit ('%' in a form):
				// try the escape first, the literal after.
				if end := match(s, i+n, form[k+len(dec):]); end >= 0 {
					return end
				}
			}
		}
		if s[i] != form[k] {
			return -1
		}
		i, k = i+1, k+1
	}
	return i
}

// unescape decodes the escape at s[i]: %XX, \uXXXX, \/, \\, \" or '+' (a
// space in a form body). It returns the bytes it stands for and its
// length, or n 0 when there is none or it stands for a letter or digit
// (never escaped by an encoder, so never matched escaped).
func unescape(s string, i int) (dec string, n int) {
	switch s[i] {
	case '+':
		return " ", 1
	case '%':
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if !isAlnum(c) {
				return string([]byte{c}), 3
			}
		}
	case '\\':
		if i+1 >= len(s) {
			return "", 0
		}
		switch s[i+1] {
		case '/', '\\', '"':
			return s[i+1 : i+2], 2
		case 'u':
			if i+5 < len(s) && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) && isHex(s[i+5]) {
				r := rune(unhex(s[i+2]))<<12 | rune(unhex(s[i+3]))<<8 | rune(unhex(s[i+4]))<<4 | rune(unhex(s[i+5]))
				if r < utf8.RuneSelf && isAlnum(byte(r)) || r >= 0xD800 && r < 0xE000 {
					return "", 0
				}
				return string(r), 6
			}
		}
	}
	return "", 0
}

// hasWide reports whether text holds an escape that find does not read:
// %XX or \uXXXX standing for a letter or digit, or an HTML character
// reference (wideAt). No encoder writes those for a credential; an echo
// that does must not carry it past the filter.
func hasWide[T ~string | ~[]byte](text T) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '%', '\\', '&':
			if _, n := wideAt(text, i); n > 0 {
				return true
			}
		}
	}
	return false
}

// entities are the named HTML character references decodeWide reads:
// those of the characters credentials and their encodings are made of.
var entities = [...]struct{ name, dec string }{
	{"amp;", "&"}, {"lt;", "<"}, {"gt;", ">"}, {"quot;", `"`}, {"apos;", "'"}, {"plus;", "+"}, {"sol;", "/"},
	{"equals;", "="}, {"colon;", ":"}, {"lowbar;", "_"}, {"percnt;", "%"}, {"bsol;", `\`}, {"period;", "."},
	{"comma;", ","}, {"excl;", "!"}, {"quest;", "?"}, {"num;", "#"}, {"semi;", ";"}, {"dollar;", "$"},
	{"ast;", "*"}, {"Hat;", "^"}, {"grave;", "`"}, {"verbar;", "|"}, {"tilde;", "~"}, {"lpar;", "("},
	{"rpar;", ")"}, {"lsqb;", "["}, {"rsqb;", "]"}, {"lcub;", "{"}, {"rcub;", "}"}, {"commat;", "@"},
}

// wideAt decodes the escape at s[i] that find does not read: %XX or
// \uXXXX standing for a letter or digit, any HTML numeric character
// reference (&#NN; or &#xHH;, the ';' optional, at most 8 digits) and the
// named ones in entities. It returns what the escape stands for and its
// length, or n 0.
func wideAt[T ~string | ~[]byte](s T, i int) (dec string, n int) {
	switch s[i] {
	case '%':
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if c := unhex(s[i+1])<<4 | unhex(s[i+2]); isAlnum(c) {
				return string(rune(c)), 3
			}
		}
	case '\\':
		if i+5 < len(s) && s[i+1] == 'u' && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) && isHex(s[i+5]) {
			r := rune(unhex(s[i+2]))<<12 | rune(unhex(s[i+3]))<<8 | rune(unhex(s[i+4]))<<4 | rune(unhex(s[i+5]))
			if r < utf8.RuneSelf && isAlnum(byte(r)) {
				return string(r), 6
			}
		}
	case '&':
		return entityAt(s, i)
	}
	return "", 0
}

// entityAt decodes the HTML character reference at s[i], an '&'.
func entityAt[T ~string | ~[]byte](s T, i int) (string, int) {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
		hex := j < len(s) && (s[j] == 'x' || s[j] == 'X')
		if hex {
			j++
		}
		start := j
		var r rune
		for j < len(s) && j-start < 8 && (s[j] >= '0' && s[j] <= '9' || hex && isHex(s[j])) {
			if hex {
				r = r<<4 | rune(unhex(s[j]))
			} else {
				r = r*10 + rune(s[j]-'0')
			}
			j++
		}
		if j == start || r == 0 || r > utf8.MaxRune || r >= 0xD800 && r < 0xE000 {
			return "", 0
		}
		if j < len(s) && s[j] == ';' {
			j++
		}
		return string(r), j - i
	}
	for _, e := range entities {
		if hasPrefixAt(s, j, e.name) {
			return e.dec, len(e.name) + 1
		}
	}
	return "", 0
}

// hasPrefixAt reports whether s[j:] begins with p.
func hasPrefixAt[T ~string | ~[]byte](s T, j int, p string) bool {
	if len(s)-j < len(p) {
		return false
	}
	for k := 0; k < len(p); k++ {
		if s[j+k] != p[k] {
			return false
		}
	}
	return true
}

// decodeWide returns s with every escape wideAt reads decoded, and for
// each byte of the result the start and end in s of what it came from.
func decodeWide(s string) (dec string, from, to []int) {
	var b strings.Builder
	b.Grow(len(s))
	from, to = make([]int, 0, len(s)), make([]int, 0, len(s))
	for i := 0; i < len(s); {
		d, n := "", 0
		switch s[i] {
		case '%', '\\', '&':
			d, n = wideAt(s, i)
		}
		if n == 0 {
			d, n = s[i:i+1], 1
		}
		b.WriteString(d)
		for range len(d) {
			from, to = append(from, i), append(to, i+n)
		}
		i += n
	}
	return b.String(), from, to
}

// tokenStart reports whether a form beginning with first, found at s[i],
// starts a token. A form that begins with a letter, digit, '_' or '-' must
// not be continued by one to its left; one that begins with any other
// character must follow a separator (space, quote, bracket, ',', ';', ':',
// '=', '&', '?', '#', '.', '!'), so that a punctuation secret ("/") is not found
// inside every URL. An escape (%3A, \u003a, \n) to the left separates too.
func tokenStart(s string, i int, first byte) bool {
	if i == 0 {
		return true
	}
	if continues(first) && !continues(s[i-1]) || !continues(first) && separates(s[i-1]) {
		return true
	}
	return endsEscape(s[:i])
}

// tokenEnd reports whether a form ending with last, found ending at s[end],
// ends a token, by the rule of tokenStart.
func tokenEnd(s string, end int, last byte) bool {
	if end == len(s) {
		return true
	}
	if continues(last) {
		return !continues(s[end])
	}
	return separates(s[end]) || s[end] == '%' || s[end] == '\\'
}

// endsEscape reports whether s ends with %XX, \uXXXX, \xXX or a one-letter
// backslash escape.
func endsEscape(s string) bool {
	n := len(s)
	switch {
	case n >= 3 && s[n-3] == '%' && isHex(s[n-2]) && isHex(s[n-1]):
		return true
	case n >= 6 && s[n-6] == '\\' && s[n-5] == 'u' && isHex(s[n-4]) && isHex(s[n-3]) && isHex(s[n-2]) && isHex(s[n-1]):
		return true
	case n >= 4 && s[n-4] == '\\' && s[n-3] == 'x' && isHex(s[n-2]) && isHex(s[n-1]):
		return true
	case n >= 2 && s[n-2] == '\\' && strings.IndexByte("abfnrtv", s[n-1]) >= 0:
		return n < 3 || s[n-3] != '\\' // "\\n" is a backslash and an n
	}
	return false
}

// replace writes s with each span replaced by Mark.
func replace(s string, spans []span) string {
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(Mark)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// continues reports whether c would continue a token: a letter, a digit,
// '_' or '-' (the base64url alphabet).
func continues(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// separates reports whether c separates tokens around a form that begins
// or ends with punctuation.
func separates(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte(`"'()<>[]{},;:=&?#.!`, c) >= 0
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// Header returns a copy of h with Authorization and Proxy-Authorization
// reduced to their scheme and Mark, and credentials removed from every
// other value.
func (f *Filter) Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		c := make([]string, len(vs))
		for i, v := range vs {
			if k == "Authorization" || k == "Proxy-Authorization" {
				c[i] = Authorization(v)
			} else {
				c[i] = f.Text(v)
			}
		}
		out[k] = c
	}
	return out
}

// Writer returns a writer that filters each write through Bytes before
// passing it to w. A credential split across two writes is not found:
// write whole lines or documents.
func (f *Filter) Writer(w io.Writer) io.Writer { return &writer{w: w, f: f} }

type writer struct {
	w io.Writer
	f *Filter
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.f.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Format prints the type only, for every verb.
func (f *Filter) Format(s fmt.State, _ rune) { _, _ = io.WriteString(s, "redact.Filter") }

// LogValue logs the type only.
func (f *Filter) LogValue() slog.Value { return slog.StringValue("redact.Filter") }

// MarshalJSON encodes the type only.
func (f *Filter) MarshalJSON() ([]byte, error) { return []byte(`"redact.Filter"`), nil }
