package sandbox

import (
	"strings"
	"unicode/utf8"
)

// maskEmail keeps the first character and the domain: r***@example.com.
func maskEmail(e string) string {
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" {
		return "***"
	}
	_, n := utf8.DecodeRuneInString(local)
	return local[:n] + "***@" + domain
}

// maskMobile keeps the last four digits: ******3210.
func maskMobile(m string) string {
	if len(m) <= 4 {
		return strings.Repeat("*", len(m))
	}
	return strings.Repeat("*", len(m)-4) + m[len(m)-4:]
}

// maskVPA keeps two characters of the handle and the bank: ra***@okaxis.
func maskVPA(v string) string {
	if v == "" {
		return ""
	}
	handle, bank, ok := strings.Cut(v, "@")
	if !ok || handle == "" {
		return "***"
	}
	keep := 0
	for i := range handle {
		if keep == 2 {
			return handle[:i] + "***@" + bank
		}
		keep++
	}
	return "***@" + bank
}
