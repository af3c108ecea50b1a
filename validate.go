package upicollect

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the amount, in whole rupees, that the service accepts.
const (
	MinAmountRupees = 1
	MaxAmountRupees = 100000
)

// checker collects every problem with a call's parameters, so that the
// caller learns all of them at once.
type checker struct{ fields []FieldError }

func (c *checker) add(field, problem string) { c.fields = append(c.fields, FieldError{field, problem}) }

func (c *checker) err(op string) error {
	if len(c.fields) == 0 {
		return nil
	}
	return &ValidationError{Op: op, Fields: c.fields}
}

// amount checks that m is whole rupees within the service's limits and
// returns the rupees to send.
func (c *checker) amount(m Money) int64 {
	r, whole := m.wholeRupees()
	switch {
	case m < Rupees(MinAmountRupees) || m > Rupees(MaxAmountRupees):
		c.add("amount", "must be between 1 and 100000 rupees, got "+m.String())
	case !whole:
		c.add("amount", "must be a whole number of rupees, got "+m.String())
	}
	return r
}

// Length caps of the text parameters, checked before any I/O. No real value
// comes near them, and together they keep a request of a few kilobytes, far
// below the 1 MiB a body may hold.
const (
	// MaxOrderIDLen caps order_id, in bytes. Order ids seen live are at most
	// about 40 characters ("ORDER_<epoch ms>_<8 hex>"); NewOrderID makes 30.
	MaxOrderIDLen = 100
	// MaxNoteLen caps note, in characters.
	MaxNoteLen = 255
	// MaxCustomerNameLen caps customer_name, in characters.
	MaxCustomerNameLen = 100
	// MaxEmailLen caps customer_email, in bytes: the longest address SMTP
	// can carry (RFC 5321).
	MaxEmailLen = 254
	// MaxVPALen caps vpa, in bytes.
	MaxVPALen = 255
	// MaxRedirectURLLen caps redirect_url, in bytes: what every browser
	// and proxy on the way back is sure to carry.
	MaxRedirectURLLen = 2048
)

// orderID checks an order id: at most MaxOrderIDLen bytes of valid UTF-8
// with no whitespace, control or format characters. Format characters
// (zero-width spaces and joiners, bidi controls) would make two ids that
// look the same; invalid UTF-8 comes back changed from the service, so that
// polling the returned id would never find the order.
func (c *checker) orderID(id string, required bool) {
	switch {
	case id == "":
		if required {
			c.add("order_id", "is required")
		}
	case len(id) > MaxOrderIDLen:
		c.add("order_id", fmt.Sprintf("must be at most %d bytes, got %d", MaxOrderIDLen, len(id)))
	case !utf8.ValidString(id):
		c.add("order_id", "must be valid UTF-8")
	case strings.IndexFunc(id, invisible) >= 0:
		c.add("order_id", "must not contain whitespace, control or format (zero-width, bidi) characters")
	}
}

// note checks the note: required, valid UTF-8, at most MaxNoteLen
// characters, no control characters.
func (c *checker) note(v string) { c.text("note", v, MaxNoteLen) }

// text checks a required free-text field of at most maxChars characters.
// The byte length is checked first, so that a huge value is refused without
// scanning it.
func (c *checker) text(field, v string, maxChars int) {
	switch {
	case strings.TrimSpace(v) == "":
		c.add(field, "is required")
	case len(v) > utf8.UTFMax*maxChars || utf8.RuneCountInString(v) > maxChars:
		c.add(field, fmt.Sprintf("must be at most %d characters", maxChars))
	case !utf8.ValidString(v):
		c.add(field, "must be valid UTF-8")
	case hasControl(v):
		c.add(field, "must not contain control characters")
	}
}

func (c *checker) redirectURL(v string) {
	if v == "" {
		c.add("redirect_url", "is required")
		return
	}
	if len(v) > MaxRedirectURLLen {
		c.add("redirect_url", fmt.Sprintf("must be at most %d bytes, got %d", MaxRedirectURLLen, len(v)))
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add("redirect_url", "must be an absolute http or https URL")
	}
}

func (c *checker) vpa(v string) {
	switch {
	case v == "":
		c.add("vpa", "is required")
	case len(v) > MaxVPALen:
		c.add("vpa", fmt.Sprintf("must be at most %d bytes, got %d", MaxVPALen, len(v)))
	case !validVPA(v):
		c.add("vpa", "must look like handle@bank (letters, digits, '.', '-', '_' before the @)")
	}
}

// customer checks the customer and returns the mobile number to send.
func (c *checker) customer(cu Customer) string {
	c.text("customer_name", cu.Name, MaxCustomerNameLen)
	switch {
	case cu.Email == "":
		c.add("customer_email", "is required")
	case len(cu.Email) > MaxEmailLen:
		c.add("customer_email", fmt.Sprintf("must be at most %d bytes, got %d", MaxEmailLen, len(cu.Email)))
	case !validEmail(cu.Email):
		c.add("customer_email", "must be a plain address like name@example.com")
	}
	mobile, ok := normalizeMobile(cu.Mobile)
	switch {
	case cu.Mobile == "":
		c.add("customer_mobile", "is required")
	case !ok:
		c.add("customer_mobile", "must be a 10-digit mobile number")
	}
	return mobile
}

// validVPA checks <handle>@<bank_handle>: handle of letters, digits, '.',
// '-', '_'; bank handle of letters, digits, '.', '-'.
func validVPA(v string) bool {
	handle, bank, ok := strings.Cut(v, "@")
	if !ok || handle == "" || bank == "" {
		return false
	}
	for _, r := range handle {
		if !isASCIIAlnum(r) && r != '.' && r != '-' && r != '_' {
			return false
		}
	}
	for _, r := range bank {
		if !isASCIIAlnum(r) && r != '.' && r != '-' {
			return false
		}
	}
	return true
}

// validEmail accepts a plain address, name@domain.tld: no display name, no
// quoting, no comments; the domain has a dot and a letter-only TLD.
func validEmail(v string) bool {
	local, domain, ok := strings.Cut(v, "@")
	if !ok || local == "" || domain == "" {
		return false
	}
	for _, r := range local {
		if !isASCIIAlnum(r) && !strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r) {
			return false
		}
	}
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	if !strings.Contains(domain, ".") {
		return false
	}
	var tld string
	for rest, more := domain, true; more; {
		tld, rest, more = strings.Cut(rest, ".")
		if tld == "" || tld[0] == '-' || tld[len(tld)-1] == '-' {
			return false
		}
		for _, r := range tld {
			if !isASCIIAlnum(r) && r != '-' {
				return false
			}
		}
	}
	if len(tld) < 2 {
		return false
	}
	for _, r := range tld {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// mobileSeparators are what people put between a mobile number's digits.
var mobileSeparators = strings.NewReplacer(" ", "", "-", "")

// normalizeMobile removes spaces and hyphens and, where more than 10 digits
// remain, a leading +91, 91 or 0; what is left must be exactly 10 digits.
func normalizeMobile(v string) (string, bool) {
	s := mobileSeparators.Replace(v)
	if len(s) > 10 {
		for _, p := range []string{"+91", "91", "0"} {
			if strings.HasPrefix(s, p) {
				s = s[len(p):]
				break
			}
		}
	}
	if len(s) != 10 {
		return "", false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	return s, true
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// invisible reports whether r would be invisible or shift the text around it:
// whitespace, control and format (Cf: zero-width, bidi) characters, and the
// replacement character that stands for invalid UTF-8.
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

func hasControlOrSpace(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0
}
