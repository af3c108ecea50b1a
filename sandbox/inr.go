package sandbox

import (
	"strconv"
	"strings"
)

// formatINR writes an amount in paise as rupees with Indian digit grouping
// and two decimals, as Indian payers read amounts: 10000000 ->
// "1,00,000.00", 50 -> "0.50". The last three digits of the rupees form one
// group and the digits before them go in pairs (lakh, crore). It is exact
// for every int64: no float is involved.
func formatINR(paise int64) string {
	u := uint64(paise)
	var b []byte
	if paise < 0 {
		b = append(b, '-')
		u = -u // two's complement: right for math.MinInt64 too
	}
	rupees := strconv.FormatUint(u/100, 10)
	if head := len(rupees) - 3; head > 0 {
		lead := 2 - head%2 // the leading group has one digit when head is odd
		b = append(b, rupees[:lead]...)
		for i := lead; i < head; i += 2 {
			b = append(b, ',', rupees[i], rupees[i+1])
		}
		b = append(b, ',')
		rupees = rupees[head:]
	}
	b = append(b, rupees...)
	return string(append(b, '.', byte('0'+u%100/10), byte('0'+u%10)))
}

// parseRupees reads an amount in rupees as the sandbox accepts it from a
// request: digits, optionally a point and more digits ("499", "123.00",
// "1.5"), exactly, into paise; digits past the second decimal must be
// zeros. It is the sandbox's own reading, not the SDK's: a request the SDK
// writes wrongly is refused here rather than read the way the SDK reads.
// ok is false for anything else, and for amounts beyond 15 rupee digits.
func parseRupees(s string) (paise int64, ok bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 15 || !allDigits(whole) || !allDigits(frac) || strings.HasSuffix(s, ".") {
		return 0, false
	}
	for len(frac) > 2 {
		if frac[len(frac)-1] != '0' {
			return 0, false // a fraction of a paisa
		}
		frac = frac[:len(frac)-1]
	}
	frac += "00"[len(frac):]
	r, _ := strconv.ParseInt(whole, 10, 64) // at most 15 digits: no overflow
	f, _ := strconv.ParseInt(frac, 10, 64)
	return r*100 + f, true
}

// allDigits reports whether s is ASCII digits only ("" is).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
