package upicollect

import (
	"log/slog"
	"strings"
)

// LogValue masks the customer's e-mail and mobile number.
func (c Customer) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", c.Name),
		slog.String("email", maskEmail(c.Email)),
		slog.String("mobile", maskMobile(c.Mobile)),
	)
}

// LogValue logs the parameters with the customer masked.
func (p IntentParams) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("amount", p.Amount.String()), slog.String("order_id", p.OrderID),
		slog.String("redirect_url", p.RedirectURL), slog.String("note", p.Note),
		slog.Any("customer", p.Customer),
	)
}

// LogValue logs the parameters with the customer and VPA masked.
func (p RequestParams) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("amount", p.Amount.String()), slog.String("order_id", p.OrderID),
		slog.String("vpa", maskVPA(p.VPA)), slog.String("note", p.Note),
		slog.Any("customer", p.Customer),
	)
}

// LogValue logs the parameters with the customer masked.
func (p LinkParams) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("amount", p.Amount.String()), slog.String("note", p.Note),
		slog.Any("customer", p.Customer),
	)
}

// LogValue logs the status with the payer's VPA masked.
func (s PaymentStatus) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("order_id", s.OrderID), slog.String("txn_status", string(s.TxnStatus)),
		slog.String("amount", s.Amount.String()), slog.String("utr", s.UTR),
		slog.String("vpa", maskVPA(s.VPA)),
	)
}

// maskEmail keeps the first character of the local part and the domain:
// "r***@example.com".
func maskEmail(e string) string {
	local, domain, ok := strings.Cut(e, "@")
	if !ok {
		return maskAll(e)
	}
	return keepFirst(local, 1) + "@" + domain
}

// maskMobile keeps the last four digits: "******3210".
func maskMobile(m string) string {
	if len(m) <= 4 {
		return maskAll(m)
	}
	return strings.Repeat("*", len(m)-4) + m[len(m)-4:]
}

// maskVPA keeps two characters of the handle and the bank: "ra***@okaxis".
func maskVPA(v string) string {
	handle, bank, ok := strings.Cut(v, "@")
	if !ok {
		return maskAll(v)
	}
	return keepFirst(handle, 2) + "@" + bank
}

func keepFirst(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return strings.Repeat("*", len(r))
	}
	return string(r[:n]) + "***"
}

func maskAll(s string) string {
	if s == "" {
		return ""
	}
	return "***"
}
