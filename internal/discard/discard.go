// Package discard is the one logger that drops every record, which every
// module reaches as upicollect.DiscardLogger: what the SDK's packages log
// to when no logger is given. (slog.DiscardHandler arrived in Go 1.24;
// this module supports Go 1.23.)
package discard

import (
	"context"
	"log/slog"
)

// Handler drops every record; it is never enabled.
type Handler struct{}

// Enabled reports false: no record is wanted.
func (Handler) Enabled(context.Context, slog.Level) bool { return false }

// Handle drops r.
func (Handler) Handle(context.Context, slog.Record) error { return nil }

// WithAttrs returns the Handler itself.
func (h Handler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns the Handler itself.
func (h Handler) WithGroup(string) slog.Handler { return h }

// Logger returns a logger on Handler.
func Logger() *slog.Logger { return slog.New(Handler{}) }
