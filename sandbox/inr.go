package sandbox

import (
	"strconv"
	"strings"

	"github.com/upicollect/upicollect-go"
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
// request, with the SDK's one reading of rupee text (upicollect.ParseRupees):
// digits, optionally a point and more digits ("499", "123.00", "1.5"),
// exactly, into paise; digits past the second decimal must be zeros. ok is
// false for anything else, and for amounts beyond 15 rupee digits.
func parseRupees(s string) (paise int64, ok bool) {
	if whole, _, _ := strings.Cut(s, "."); len(whole) > 15 {
		return 0, false
	}
	m, err := upicollect.ParseRupees(s)
	return int64(m), err == nil
}
