package upicollect

import (
	"net/url"
	"strings"
	"unicode"
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
	case !whole:
		c.add("amount", "must be a whole number of rupees, got "+m.String())
	case r < MinAmountRupees || r > MaxAmountRupees:
		c.add("amount", "must be between 1 and 100000 rupees, got "+m.String())
	}
	return r
}

func (c *checker) orderID(id string, required bool) {
	switch {
	case id == "" && required:
		c.add("order_id", "is required")
	case hasControlOrSpace(id):
		c.add("order_id", "must not contain whitespace or control characters")
	}
}

func (c *checker) nonEmpty(field, v string) {
	if strings.TrimSpace(v) == "" {
		c.add(field, "is required")
	}
}

func (c *checker) redirectURL(v string) {
	if v == "" {
		c.add("redirect_url", "is required")
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add("redirect_url", "must be an absolute http or https URL")
	}
}

func (c *checker) vpa(v string) {
	if v == "" {
		c.add("vpa", "is required")
		return
	}
	if !validVPA(v) {
		c.add("vpa", "must look like handle@bank (letters, digits, '.', '-', '_' before the @)")
	}
}

// customer checks the customer and returns the mobile number to send.
func (c *checker) customer(cu Customer) string {
	c.nonEmpty("customer_name", cu.Name)
	switch {
	case cu.Email == "":
		c.add("customer_email", "is required")
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
	if !ok || local == "" || domain == "" || len(v) > 254 {
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
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !isASCIIAlnum(r) && r != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
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

// normalizeMobile removes spaces and hyphens and, where more than 10 digits
// remain, a leading +91, 91 or 0; what is left must be exactly 10 digits.
func normalizeMobile(v string) (string, bool) {
	s := strings.NewReplacer(" ", "", "-", "").Replace(v)
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

func hasControlOrSpace(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0
}
