package redisrate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/redisrate"
)

// goRedisLog records what go-redis logs (its own log goes to stderr).
type goRedisLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *goRedisLog) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func (l *goRedisLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// stderrLogger is go-redis's default logger, put back after a test.
type stderrLogger struct{ l *log.Logger }

func (s stderrLogger) Printf(_ context.Context, format string, v ...any) {
	_ = s.l.Output(2, fmt.Sprintf(format, v...))
}

// recordGoRedis sends go-redis's log to a recorder until t ends.
func recordGoRedis(t *testing.T) *goRedisLog {
	rec := &goRedisLog{}
	redis.SetLogger(rec)
	t.Cleanup(func() { redis.SetLogger(stderrLogger{log.New(os.Stderr, "redis: ", log.LstdFlags|log.Lshortfile)}) })
	return rec
}

// TestNoMaintNotificationsNoise: the limiters of the guide and of this
// module's tests, on a real redis-server, make go-redis log nothing:
// in particular not "failed to initialize maintnotifications … cannot
// overwrite existing handler", which a client made from another client's
// Options() prints on a user's stderr. The second case shows the recorder
// sees that line when it is printed.
func TestNoMaintNotificationsNoise(t *testing.T) {
	const noise = "failed to initialize maintnotifications"
	rdb := startRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()

	t.Run("limiters as documented", func(t *testing.T) {
		rec := recordGoRedis(t)
		// The README's client, and this module's second process made from
		// it before either connects (a connection to a Redis without
		// maintenance notifications turns them off, hiding the line).
		own := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr, MaxRetries: -1, DialerRetries: 1})
		t.Cleanup(func() { _ = own.Close() })
		second := anotherProcess(t, own)
		for _, c := range []*redis.Client{own, second, rdb} {
			require.NoError(t, redisrate.New(c, "quiet", 1000, 10).Wait(ctx))
		}
		assert.NotContains(t, rec.String(), noise)
		assert.Empty(t, rec.String(), "go-redis logged nothing")
	})
	t.Run("cloned options do print it", func(t *testing.T) {
		rec := recordGoRedis(t)
		// Before its first connection (which turns maintenance
		// notifications off on a Redis without them), as a process starts.
		first := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
		clone := redis.NewClient(first.Options())
		t.Cleanup(func() { _ = first.Close(); _ = clone.Close() })
		assert.Contains(t, rec.String(), noise)
		assert.Contains(t, rec.String(), "cannot overwrite existing handler")
	})
}
