package reconcile

import (
	"encoding/json"
	"log/slog"

	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// deliveryJSON is e as a webhook delivery's JSON (webhook.Delivery: what
// --deliver https:// POSTs, byte for byte), and the delivery's id.
func deliveryJSON(e reconcile.Event) ([]byte, string, error) {
	d := webhook.NewDelivery(e)
	b, err := json.Marshal(d)
	return b, d.ID, err
}

// webhookDelivery is --deliver https://URL: webhook.Sender, signed with
// the secret of --webhook-secret-file or $UPICOLLECT_WEBHOOK_SECRET.
// Sender refuses an endpoint that is not https (or http on loopback).
func (o *RunOptions) webhookDelivery() (reconcile.Handler, error) {
	secret, err := o.webhookSecret()
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(o.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := webhook.Sender(o.Deliver, secret, webhook.WithTimeout(o.DeliverTimeout), webhook.WithLogger(logger))
	if err != nil {
		return nil, cmdutil.UsageError(err)
	}
	return h, nil
}
