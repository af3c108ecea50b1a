package discard

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHandlerDropsEverything(t *testing.T) {
	var h slog.Handler = Handler{}
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 100} {
		assert.False(t, h.Enabled(context.Background(), l), "level %v", l)
	}
	assert.NoError(t, h.Handle(context.Background(), slog.Record{}))
	assert.Equal(t, h, h.WithAttrs([]slog.Attr{slog.String("k", "v")}))
	assert.Equal(t, h, h.WithGroup("g"))
	assert.False(t, Logger().Enabled(context.Background(), slog.LevelError))
	assert.Equal(t, h, Logger().Handler())
}
