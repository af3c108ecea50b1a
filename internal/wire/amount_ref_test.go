package wire

import (
	"fmt"
	"testing"
)

// parseDecimalPaiseRef is ParseDecimalPaise as it was before the lexer,
// kept as the reference of FuzzParseDecimalPaiseDifferential. It parses a decimal rupee amount such as "1.08", "-3",
// "499.000" or "1.5e1" into paise, exactly.
func parseDecimalPaiseRef(s string) (int64, error) {
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("amount %q: %s", clip(s), why)
	}
	if s == "" {
		return bad("empty")
	}
	neg := false
	i := 0
	if s[0] == '-' {
		neg = true
		i = 1
	}
	// Collect the digits of the mantissa and where the decimal point sits.
	var digits []byte
	point := -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		case c == '.' && point < 0:
			point = len(digits)
		default:
			goto exponent
		}
	}
exponent:
	if len(digits) == 0 {
		return bad("no digits")
	}
	if point < 0 {
		point = len(digits)
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return bad("not a number")
		}
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return bad("empty exponent")
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return bad("not a number")
			}
			if exp > 1000 {
				return bad("out of range")
			}
			exp = exp*10 + int(c-'0')
		}
		if expNeg {
			exp = -exp
		}
	}
	// In paise the point moves two places right.
	point += exp + 2
	var paise int64
	for k, c := range digits {
		if k >= point {
			if c != '0' {
				return bad("not a whole number of paise")
			}
			continue
		}
		if paise > maxParsedPaise/10 {
			return bad("out of range")
		}
		paise = paise*10 + int64(c-'0')
	}
	for k := len(digits); k < point; k++ {
		if paise > maxParsedPaise/10 {
			return bad("out of range")
		}
		paise *= 10
	}
	if paise > maxParsedPaise {
		return bad("out of range")
	}
	if neg {
		paise = -paise
	}
	return paise, nil
}

// FuzzParseDecimalPaiseDifferential checks the lexer-based parser against
// the reference it replaced: same value, same acceptance, for every input.
func FuzzParseDecimalPaiseDifferential(f *testing.F) {
	for _, s := range []string{
		"", "-", ".", "-.", "0", "1.08", "-3", "499.000", "1.5e1", "1e-2", "1E+2", "1e", "1e+",
		"1.001", "00.10", "9007199254740992", "90071992547409.93", "1e1001", "1e-1001", "0e99999",
		".5", "5.", "1..2", "1.2.3", "+1", " 1", "1x", "1e2x", "-0", "123.00", "1.0e2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := ParseDecimalPaise(s)
		want, wantErr := parseDecimalPaiseRef(s)
		if (gotErr == nil) != (wantErr == nil) || got != want {
			t.Fatalf("ParseDecimalPaise(%q) = %d, %v; reference gives %d, %v", s, got, gotErr, want, wantErr)
		}
	})
}
