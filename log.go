package upicollect

import (
	"context"
	"log/slog"

	"github.com/upicollect/upicollect-go/internal/mask"
	"github.com/upicollect/upicollect-go/internal/redact"
)

// logObserver is the client's log: the Observer that WithLogger installs.
// It writes a debug record per attempt, a warning per retry and per app
// link the client dropped from an intent, and an error when a call fails.
// Each record is logged with the context the observer is given, which
// carries the caller's, so that a context-aware handler keeps its trace
// ids. A record holds the call's operation, path and order id, counts,
// statuses, durations and the SDK's error text filtered of the client's
// credentials: never the Authorization header, the secret key or a body.
type logObserver struct {
	NopObserver
	log    *slog.Logger
	filter *redact.Filter
}

// EndAttempt logs the attempt and, when the call goes on, the retry.
func (o logObserver) EndAttempt(ctx context.Context, call CallInfo, a AttemptEnd) {
	if o.log.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("op", call.Op), slog.String("path", call.path), slog.Int("attempt", a.Attempt),
			slog.String("order_id", call.OrderID),
		}
		if a.resp != nil {
			attrs = append(attrs, slog.Int("http_status", a.resp.HTTPStatus), slog.Duration("duration", a.resp.Duration))
		}
		if a.err != nil {
			attrs = append(attrs, slog.String("error", o.filter.Text(shortErr(a.err))))
		}
		o.log.LogAttrs(ctx, slog.LevelDebug, "upicollect: attempt", attrs...)
	}
	if a.RetryReason != "" {
		o.log.LogAttrs(ctx, slog.LevelWarn, "upicollect: retrying",
			slog.String("op", call.Op), slog.Int("attempt", a.Attempt), slog.String("reason", o.filter.Text(a.RetryReason)),
			slog.Duration("delay", a.RetryDelay), slog.String("order_id", call.OrderID))
	}
}

// EndCall logs each app link the client dropped and, when the call
// failed, the failure.
func (o logObserver) EndCall(ctx context.Context, call CallInfo, c CallEnd) {
	for _, d := range c.DroppedLinks {
		o.log.LogAttrs(ctx, slog.LevelWarn, "upicollect: app link dropped",
			slog.String("op", call.Op), slog.String("order_id", call.OrderID),
			slog.String("app", d.App), slog.String("reason", d.Reason))
	}
	if c.err != nil {
		o.log.LogAttrs(ctx, slog.LevelError, "upicollect: call failed",
			slog.String("op", call.Op), slog.Int("attempts", c.Attempts), slog.String("reason", c.Reason),
			slog.String("order_id", call.OrderID), slog.String("error", o.filter.Text(c.err.Error())))
	}
}

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
