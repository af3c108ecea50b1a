package upicollect

import (
	"context"
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

// The call's own context reaches every record, so that a context-aware
// handler keeps the caller's trace ids.

func (c *Client) logAttempt(ctx context.Context, cl *call, n int, a *attempt) {
	if !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", cl.op), slog.String("path", cl.path), slog.Int("attempt", n),
		slog.String("order_id", cl.orderID),
	}
	if a.resp != nil {
		attrs = append(attrs, slog.Int("http_status", a.resp.HTTPStatus), slog.Duration("duration", a.resp.Duration))
	}
	if a.err != nil {
		attrs = append(attrs, slog.String("error", c.filter.Text(shortErr(a.err))))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "upicollect: attempt", attrs...)
}

func (c *Client) logRetry(ctx context.Context, cl *call, n int, v verdict) {
	c.logger.LogAttrs(ctx, slog.LevelWarn, "upicollect: retrying",
		slog.String("op", cl.op), slog.Int("attempt", n), slog.String("reason", c.filter.Text(v.reason)),
		slog.Duration("delay", v.delay), slog.String("order_id", cl.orderID))
}

func (c *Client) logGiveUp(ctx context.Context, cl *call, n int, err error, why string) {
	c.logger.LogAttrs(ctx, slog.LevelError, "upicollect: call failed",
		slog.String("op", cl.op), slog.Int("attempts", n), slog.String("reason", why),
		slog.String("order_id", cl.orderID), slog.String("error", c.filter.Text(err.Error())))
}
