package upicollect

import (
	"log/slog"

	"github.com/upicollect/upicollect-go/internal/mask"
)

// LogValue masks the customer's e-mail and mobile number.
func (c Customer) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", c.Name),
		slog.String("email", mask.Email(c.Email)),
		slog.String("mobile", mask.Mobile(c.Mobile)),
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
		slog.String("vpa", mask.VPA(p.VPA)), slog.String("note", p.Note),
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
		slog.String("vpa", mask.VPA(s.VPA)),
	)
}

// MaskVPA returns a payer's UPI ID (VPA) as the SDK's logs and the
// sandbox's pages show it: two characters of the handle and the bank
// handle ("ra***@okaxis"). Programs that show payments to people (the
// CLI's ledger dashboard) use it so that every page masks alike.
func MaskVPA(vpa string) string { return mask.VPA(vpa) }
