package upicollect

import (
	"errors"

	"github.com/upicollect/upicollect-go/internal/wire"
)

// ParseRupees reads an amount written in rupees into Money, exactly (no
// float): ASCII digits, optionally a point and decimals, as "499",
// "499.5" or "499.50"; decimals past the second must be zeros, as a Money
// holds whole paise. A sign, an exponent, a separator, a space, a point
// without digits on both sides, a fraction of a paisa and an amount beyond
// Money's range are refused with a *ValidationError (errors.Is
// ErrValidation) whose one field is "amount". The range is Money's, not a
// payment's: operations refuse amounts outside MinAmountRupees ..
// MaxAmountRupees themselves.
func ParseRupees(s string) (Money, error) {
	p, err := wire.ParseRupees(s)
	if err != nil {
		problem := "must be rupees, like 499 or 499.50"
		switch {
		case errors.Is(err, wire.ErrBarePoint):
			problem = "must have one or two decimals after its point"
		case errors.Is(err, wire.ErrFractionOfPaisa):
			problem = "has more than two decimals (a fraction of a paisa)"
		case errors.Is(err, wire.ErrOutOfRange):
			problem = "is too large"
		}
		return 0, &ValidationError{Op: "ParseRupees", Fields: []FieldError{{Field: "amount", Problem: problem}}}
	}
	return Money(p), nil
}
