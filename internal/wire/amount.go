package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxParsedPaise bounds parsed amounts far above any real payment (the service caps
// at 100000 rupees) and far below int64 overflow.
const maxParsedPaise = int64(1) << 53

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
// "499.000" or "1.5e1" into paise, exactly: lexing splits the text into
// sign, digits and exponent, and the conversion refuses what it cannot
// represent instead of rounding or overflowing.
func ParseDecimalPaise(s string) (int64, error) {
	d, err := lexDecimal(s)
	if err == nil {
		var paise int64
		if paise, err = d.paise(); err == nil {
			return paise, nil
		}
	}
	return 0, fmt.Errorf("amount %q: %w", clip(s), err)
}

// maxExponent bounds an exponent's digits: beyond it every non-zero amount
// is out of range or a fraction of a paisa anyway.
const maxExponent = 1000

// decimal is a lexed number: the mantissa's digits before and after the
// point, times ten to the exp.
type decimal struct {
	neg             bool
	whole, fraction string // the mantissa's digits, kept apart: no copy
	exp             int
}

// lexDecimal reads [-]digits[.digits][(e|E)[+|-]digits], with at least one
// mantissa digit.
func lexDecimal(s string) (decimal, error) {
	var d decimal
	if s == "" {
		return d, errors.New("empty")
	}
	rest := s
	if rest[0] == '-' {
		d.neg, rest = true, rest[1:]
	}
	intPart, rest := splitDigits(rest)
	var fracPart string
	if rest != "" && rest[0] == '.' {
		fracPart, rest = splitDigits(rest[1:])
	}
	if intPart == "" && fracPart == "" {
		return d, errors.New("no digits")
	}
	d.whole, d.fraction = intPart, fracPart
	if rest == "" {
		return d, nil
	}
	if rest[0] != 'e' && rest[0] != 'E' {
		return d, errors.New("not a number")
	}
	exp, err := lexExponent(rest[1:])
	d.exp = exp
	return d, err
}

// lexExponent reads [+|-]digits, bounded by maxExponent.
func lexExponent(s string) (int, error) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	digits, rest := splitDigits(s)
	switch {
	case s == "":
		return 0, errors.New("empty exponent")
	case rest != "" || digits == "":
		return 0, errors.New("not a number")
	}
	exp := 0
	for i := 0; i < len(digits); i++ {
		if exp > maxExponent {
			return 0, errOutOfRange
		}
		exp = exp*10 + int(digits[i]-'0')
	}
	if neg {
		exp = -exp
	}
	return exp, nil
}

// splitDigits splits s after its leading ASCII digits.
func splitDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

var errOutOfRange = errors.New("out of range")

// paise converts d to paise: the point moves two places right; digits after
// it must be zeros, and the value must not exceed maxParsedPaise.
func (d decimal) paise() (int64, error) {
	whole := len(d.whole) + d.exp + 2 // mantissa digits that are whole paise
	n := len(d.whole) + len(d.fraction)
	var paise int64
	for k := 0; k < n; k++ {
		c := int64(d.digit(k) - '0')
		if k >= whole {
			if c != 0 {
				return 0, errors.New("not a whole number of paise")
			}
			continue
		}
		if paise > maxParsedPaise/10 {
			return 0, errOutOfRange
		}
		paise = paise*10 + c
	}
	for k := n; k < whole; k++ {
		if paise > maxParsedPaise/10 {
			return 0, errOutOfRange
		}
		paise *= 10
	}
	if paise > maxParsedPaise {
		return 0, errOutOfRange
	}
	if d.neg {
		paise = -paise
	}
	return paise, nil
}

// digit is the mantissa's k-th digit.
func (d decimal) digit(k int) byte {
	if k < len(d.whole) {
		return d.whole[k]
	}
	return d.fraction[k-len(d.whole)]
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}
