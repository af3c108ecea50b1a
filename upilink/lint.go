package upilink

import (
	"strings"
	"unicode"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/upi"
)

// Problem is something legal in a link that is known to fail in payers'
// apps, with the parameter it concerns.
type Problem struct{ Param, Message string }

// Lint lists what is legal but known to fail in the field:
//   - a merchant link (one with mc) without tr, or a link with tr but no mc:
//     apps treat it as a person-to-person payment and may cap or refuse it;
//   - a parameter name repeated, also as a case or percent variant (am and
//     AM, am and %61m), or written with escapes: apps may read another
//     value than the one shown;
//   - cu other than INR: UPI settles rupees only;
//   - mam (the least the payer may pay) above am;
//   - mode 02 or 05 (secure QR and intent) without sign: apps refuse it;
//   - an amount above the service's limit of ₹1,00,000;
//   - a payee name with characters that apps mangle (& % + quotes < > and
//     characters outside the basic multilingual plane, such as emoji).
func (l *Link) Lint() []Problem {
	var ps []Problem
	if l.MerchantCode != "" && l.TxnRef == "" {
		ps = append(ps, Problem{"tr", "a merchant link (mc set) without a transaction reference"})
	}
	if l.TxnRef != "" && l.MerchantCode == "" {
		ps = append(ps, Problem{"mc", "a transaction reference without a merchant code"})
	}
	for _, p := range l.names {
		ps = append(ps, Problem{p.Param, "parameter written as " + upi.Quote(p.Got) + ": apps may read another value than the one shown"})
	}
	if p := upi.CurrencyProblem(l.Currency); p != nil {
		ps = append(ps, Problem{p.Param, "currency " + p.Got + ": UPI settles INR only"})
	}
	if l.MinAmount != 0 && l.Amount != 0 {
		if p := upi.MinAmountProblem(l.Amount.String(), l.MinAmount.String()); p != nil {
			ps = append(ps, Problem{"mam", "minimum amount " + l.MinAmount.String() + " above the amount " + l.Amount.String()})
		}
	}
	if (l.Mode == "02" || l.Mode == "05") && l.Sign == "" {
		ps = append(ps, Problem{"sign", "mode " + l.Mode + " requires a signed link"})
	}
	for _, a := range []struct {
		param string
		m     upicollect.Money
	}{{"am", l.Amount}, {"mam", l.MinAmount}} {
		if a.m > upicollect.Rupees(upicollect.MaxAmountRupees) {
			ps = append(ps, Problem{a.param, "above the limit of 100000 rupees: " + a.m.String()})
		}
	}
	if strings.ContainsFunc(l.PayeeName, mangled) {
		ps = append(ps, Problem{"pn", "characters that payers' apps mangle: " + l.PayeeName})
	}
	return ps
}

func mangled(r rune) bool {
	return strings.ContainsRune("&%+\"'<>", r) || r > 0xFFFF || unicode.IsControl(r)
}
