// Package mask hides most of a customer's e-mail address, mobile number and
// UPI ID (VPA) for logs and pages, while keeping enough to recognise them.
// The SDK's log records and the sandbox's pages and logs share it, so the
// two always agree.
package mask

import (
	"strings"
	"unicode/utf8"
)

const hidden = "***"

// Email keeps the first character of the local part and the domain:
// "r***@example.com". A value without '@' or with an empty local part is
// fully hidden; "" stays "".
func Email(e string) string {
	if e == "" {
		return ""
	}
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" {
		return hidden
	}
	return keepRunes(local, 1) + hidden + "@" + domain
}

// Mobile keeps the last four characters: "******3210". Four or fewer are
// fully hidden, one '*' each; "" stays "".
func Mobile(m string) string {
	n := utf8.RuneCountInString(m)
	if n <= 4 {
		return strings.Repeat("*", n)
	}
	r := []rune(m)
	return strings.Repeat("*", n-4) + string(r[n-4:])
}

// VPA keeps two characters of the handle and the bank handle:
// "ra***@okaxis". A handle of two characters or fewer is hidden whole
// ("***@okaxis"); a value without '@' is fully hidden; "" stays "".
func VPA(v string) string {
	if v == "" {
		return ""
	}
	handle, bank, ok := strings.Cut(v, "@")
	if !ok || handle == "" {
		return hidden
	}
	if utf8.RuneCountInString(handle) <= 2 {
		return hidden + "@" + bank
	}
	return keepRunes(handle, 2) + hidden + "@" + bank
}

// keepRunes returns the first n runes of s.
func keepRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
