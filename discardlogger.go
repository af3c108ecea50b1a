package upicollect

import (
	"log/slog"

	"github.com/upicollect/upicollect-go/internal/discard"
)

// discardLogger is shared: a *slog.Logger cannot be changed once made.
var discardLogger = discard.Logger()

// DiscardLogger returns a logger that drops every record: it is never
// enabled, at any level. It is what the SDK's packages log to when they
// are given no logger (reconcile's Sweeper, reconcile/webhook's Sender,
// the CLI's dashboard), the one discard logger of every module of the SDK.
// (slog.DiscardHandler arrived in Go 1.24; the SDK supports Go 1.23.)
func DiscardLogger() *slog.Logger { return discardLogger }
