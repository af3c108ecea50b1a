package upicollect_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/upicollect/upicollect-go"
)

func TestDiscardLogger(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		log  *slog.Logger
	}{
		{name: "itself", log: upicollect.DiscardLogger()},
		{name: "With", log: upicollect.DiscardLogger().With("secret", "s3cr3t")},
		{name: "WithGroup", log: upicollect.DiscardLogger().WithGroup("g")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, l := range []slog.Level{slog.LevelDebug - 100, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 100} {
				assert.False(t, tt.log.Enabled(ctx, l), "level %v", l)
				assert.False(t, tt.log.Handler().Enabled(ctx, l), "handler, level %v", l)
			}
			assert.NoError(t, tt.log.Handler().Handle(ctx, slog.Record{}))
			tt.log.Error("dropped", "k", "v") // nothing to see, nothing to panic
		})
	}
	assert.Same(t, upicollect.DiscardLogger(), upicollect.DiscardLogger(), "one logger, made once")
}
