package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxPaise bounds parsed amounts far above any real payment (the service caps
// at 100000 rupees) and far below int64 overflow.
const maxPaise = int64(1) << 53

// ParseAmount reads an amount in rupees, sent as a JSON number (499, 1.08,
// 1.0e2) or a JSON string ("10", "123.00"), and returns it in paise exactly.
// A value that is not a whole number of paise is an error, never rounded.
func ParseAmount(v json.RawMessage) (int64, error) {
	s, isString := ReadString(v)
	if !isString {
		s = string(v)
	}
	s = strings.TrimSpace(s)
	if isString {
		// Amounts as strings have been seen with a currency-free plain form only;
		// a leading "+" or thousands separators are not accepted.
		if s == "" {
			return 0, errors.New("amount is an empty string")
		}
	}
	return ParseDecimalPaise(s)
}

// ParseDecimalPaise parses a decimal rupee amount such as "1.08", "-3",
// "499.000" or "1.5e1" into paise, exactly.
func ParseDecimalPaise(s string) (int64, error) {
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
		if paise > maxPaise/10 {
			return bad("out of range")
		}
		paise = paise*10 + int64(c-'0')
	}
	for k := len(digits); k < point; k++ {
		if paise > maxPaise/10 {
			return bad("out of range")
		}
		paise *= 10
	}
	if paise > maxPaise {
		return bad("out of range")
	}
	if neg {
		paise = -paise
	}
	return paise, nil
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
