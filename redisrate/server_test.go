package redisrate_test

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/upicollect/upicollect-go/redisrate/redistest"
)

// waitBound bounds every wait of a test (a context's timeout), so that a
// regression fails instead of hanging. It is never a measurement.
const waitBound = 30 * time.Second

// startRedis starts a redis-server of the test's own (see redistest.Start:
// skipped without one, except under CI=true) and returns a client of it.
func startRedis(t testing.TB) *redis.Client {
	t.Helper()
	s := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// anotherProcess is a second client of rdb's Redis, made as another
// process makes its own: from fresh Options. A client made from
// rdb.Options() would share rdb's push-notification handlers, and go-redis
// would log "failed to initialize maintnotifications … cannot overwrite
// existing handler" on stderr.
func anotherProcess(t testing.TB, rdb *redis.Client) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}
