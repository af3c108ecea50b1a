package upicollect

import (
	"errors"
	"sort"
	"strings"

	"github.com/upicollect/upicollect-go/internal/upi"
)

// VerifyError lists every way an intent's links disagree with the
// parameters it was created with.
type VerifyError struct {
	Mismatches []LinkMismatch
}

// LinkMismatch is one link parameter that is not what the merchant asked
// for. Link is "intent" for the generic link or the app's key in AppLinks;
// Param is the link parameter ("am", "tr") or "link" when the link could
// not be read at all.
type LinkMismatch struct {
	Link, Param, Want, Got string
}

// Error lists the mismatches.
func (e *VerifyError) Error() string {
	var b strings.Builder
	b.WriteString("upicollect: intent links do not match the request: ")
	for i, m := range e.Mismatches {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.Link + " " + m.Param + ": want " + quoteOrNone(m.Want) + ", got " + quoteOrNone(m.Got))
	}
	return b.String()
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return `"` + s + `"`
}

// Verify checks that the intent's generic link and every per-app link
// carry p's amount (am) and, when p.OrderID is set, that order id as the
// transaction reference (tr). Call it before showing a link or QR code to a
// payer: a link that pays another amount, or that the service would book
// under another order, must never reach a payer, whatever a proxy, a bug or
// an attacker did to the answer. It returns a *VerifyError naming each
// mismatch, and an error for a nil intent or nil params. It does no I/O.
func (i *Intent) Verify(p *IntentParams) error {
	if i == nil || p == nil {
		return errors.New("upicollect: Verify: nil intent or params")
	}
	links := map[string]string{"intent": i.Link}
	for k, v := range i.AppLinks {
		links[k] = v
	}
	names := make([]string, 0, len(links))
	for k := range links {
		names = append(names, k)
	}
	sort.Strings(names)
	var ms []LinkMismatch
	for _, name := range names {
		ms = append(ms, verifyLink(name, links[name], p)...)
	}
	if len(ms) > 0 {
		return &VerifyError{Mismatches: ms}
	}
	return nil
}

func verifyLink(name, raw string, p *IntentParams) []LinkMismatch {
	l, err := upi.Parse(raw)
	if err != nil {
		return []LinkMismatch{{Link: name, Param: "link", Want: "a UPI link", Got: err.Error()}}
	}
	var ms []LinkMismatch
	am := l.Get("am")
	if paise, err := upi.Amount(am); err != nil || am == "" || Money(paise) != p.Amount {
		ms = append(ms, LinkMismatch{Link: name, Param: "am", Want: p.Amount.String(), Got: am})
	}
	if p.OrderID != "" && l.Get("tr") != p.OrderID {
		ms = append(ms, LinkMismatch{Link: name, Param: "tr", Want: p.OrderID, Got: l.Get("tr")})
	}
	return ms
}
