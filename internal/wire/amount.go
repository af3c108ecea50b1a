package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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

// The errors of an amount that is not a whole number of paise, or beyond
// what a parser accepts.
var (
	ErrFractionOfPaisa = errors.New("not a whole number of paise")
	ErrOutOfRange      = errors.New("out of range")
)

// errOutOfRange is ErrOutOfRange, by the name the lexer uses.
var errOutOfRange = ErrOutOfRange

// paise converts d to paise: the point moves two places right; digits after
// it must be zeros, and the value must not exceed maxParsedPaise.
func (d decimal) paise() (int64, error) { return d.paiseUpTo(maxParsedPaise) }

// paiseUpTo is paise with limit as the largest amount accepted.
func (d decimal) paiseUpTo(limit int64) (int64, error) {
	whole := len(d.whole) + d.exp + 2 // mantissa digits that are whole paise
	n := len(d.whole) + len(d.fraction)
	var paise int64
	for k := 0; k < n; k++ {
		c := int64(d.digit(k) - '0')
		if k >= whole {
			if c != 0 {
				return 0, ErrFractionOfPaisa
			}
			continue
		}
		if paise > (limit-c)/10 { // paise*10+c > limit, without overflowing
			return 0, errOutOfRange
		}
		paise = paise*10 + c
	}
	for k := n; k < whole; k++ {
		if paise > limit/10 {
			return 0, errOutOfRange
		}
		paise *= 10
	}
	if d.neg {
		paise = -paise
	}
	return paise, nil
}

// The errors of ParseRupees besides ErrFractionOfPaisa and ErrOutOfRange.
var (
	ErrNotRupees = errors.New("not rupees written as digits")
	ErrBarePoint = errors.New("a point without decimals after it")
)

// ParseRupees reads an amount as people and forms write rupees: ASCII
// digits, optionally a point and one or more decimals ("499", "499.5",
// "499.50"), into paise, exactly; decimals past the second must be zeros
// (ErrFractionOfPaisa). Anything else is ErrNotRupees (a sign, an exponent,
// a separator, a space, no digit before the point) or ErrBarePoint ("499."),
// and an amount beyond int64 paise is ErrOutOfRange. It is the one reading
// of rupee text: upicollect.ParseRupees, the CLI's flags and the sandbox's
// requests use it.
func ParseRupees(s string) (int64, error) {
	whole, frac, point := strings.Cut(s, ".")
	switch {
	case whole == "" || !asciiDigits(whole) || !asciiDigits(frac):
		return 0, ErrNotRupees
	case point && frac == "":
		return 0, ErrBarePoint
	}
	return decimal{whole: whole, fraction: frac}.paiseUpTo(math.MaxInt64)
}

// asciiDigits reports whether s is ASCII digits only ("" is).
func asciiDigits(s string) bool {
	_, rest := splitDigits(s)
	return rest == ""
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
