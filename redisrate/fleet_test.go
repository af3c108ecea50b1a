package redisrate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/sandbox"
)

// childEnv, when set, makes the test binary a fleet member (see
// runChild) instead of running tests: the fleet tests re-execute the
// binary, so that each member is a process of its own.
const childEnv = "REDISRATE_FLEET_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// childConfig is what a fleet member is told, as JSON in childEnv.
type childConfig struct {
	BaseURL   string  `json:"base_url"`
	MID       string  `json:"mid"`
	PublicKey string  `json:"public_key"`
	SecretKey string  `json:"secret_key"`
	RedisAddr string  `json:"redis_addr"` // "": WithRateLimit in the process
	Key       string  `json:"key"`
	PerSecond float64 `json:"per_second"`
	Burst     int     `json:"burst"`
	Callers   int     `json:"callers"`
	Calls     int     `json:"calls"` // in all, shared by the callers
}

// childResult is what a member prints when done.
type childResult struct {
	OK     int64  `json:"ok"`
	Failed int64  `json:"failed"`
	Error  string `json:"error,omitempty"`
}

// runChild is a fleet member: it prints "ready", waits for a line on
// stdin (so that all members start together), makes its calls through
// Callers goroutines and prints a childResult.
func runChild() int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &cfg); err != nil {
		fmt.Println(`{"error":"bad config"}`)
		return 2
	}
	limit := upicollect.WithRateLimit(cfg.PerSecond, cfg.Burst)
	if cfg.RedisAddr != "" {
		rdb := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, MaxRetries: -1, DialerRetries: 1})
		defer rdb.Close()
		limit = upicollect.WithRateLimiter(redisrate.New(rdb, cfg.Key, cfg.PerSecond, cfg.Burst))
	}
	c, err := upicollect.NewClient(upicollect.Credentials{MID: cfg.MID, PublicKey: cfg.PublicKey, SecretKey: cfg.SecretKey},
		upicollect.WithBaseURL(cfg.BaseURL), limit)
	if err != nil {
		fmt.Printf("{\"error\":%q}\n", err)
		return 2
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	var res childResult
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < cfg.Callers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(cfg.Calls) {
				if _, err := c.CheckPaymentStatus(ctx, "ord-fleet"); err != nil {
					atomic.AddInt64(&res.Failed, 1)
					continue
				}
				atomic.AddInt64(&res.OK, 1)
			}
		}()
	}
	wg.Wait()
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	return 0
}

// runFleet starts n members with cfg, starts them together, and returns
// their results.
func runFleet(t *testing.T, n int, cfg childConfig) []childResult {
	t.Helper()
	type member struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	members := make([]member, n)
	for i := range members {
		b, err := json.Marshal(cfg)
		require.NoError(t, err)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+string(b))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		members[i] = member{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	}
	line := func(m member) string {
		got := make(chan string, 1)
		go func() {
			if m.out.Scan() {
				got <- m.out.Text()
				return
			}
			got <- ""
		}()
		select {
		case s := <-got:
			return s
		case <-time.After(waitBound):
			return "(no answer)"
		}
	}
	for _, m := range members {
		require.Equal(t, "ready", line(m))
	}
	for _, m := range members {
		_, err := io.WriteString(m.stdin, "go\n")
		require.NoError(t, err)
	}
	results := make([]childResult, n)
	for i, m := range members {
		require.NoError(t, json.Unmarshal([]byte(line(m)), &results[i]))
		require.Empty(t, results[i].Error)
	}
	return results
}

// TestFleetHoldsSharedRate: three processes sharing one key make their
// calls with no 429 from a sandbox whose quota is the same rate; three
// processes with WithRateLimit each at that rate send three times it and
// meet the quota's 429s. The counts come from the sandbox's statistics,
// not from a clock.
func TestFleetHoldsSharedRate(t *testing.T) {
	const (
		processes = 3
		perSecond = 100
		burst     = 5
		calls     = 50 // per process: half a second at the shared rate
	)
	rdb := startRedis(t)
	// The quota's burst is larger than the fleet's, so that the test
	// holds on a loaded machine whose scheduling bunches requests beyond
	// the sandbox's 50ms of forgiven jitter; the rate is the same.
	sb := sandbox.Start(t, sandbox.WithRateLimit(perSecond, 4*burst))
	creds := sb.Credentials()
	cfg := childConfig{
		BaseURL: sb.URL(), MID: creds.MID, PublicKey: creds.PublicKey, SecretKey: creds.SecretKey,
		PerSecond: perSecond, Burst: burst, Callers: 8, Calls: calls,
	}
	op := "checkPaymentStatus"

	t.Run("redisrate", func(t *testing.T) {
		sb.Clear(sandbox.Counts)
		shared := cfg
		shared.RedisAddr, shared.Key = rdb.Options().Addr, "fleet-"+strconv.FormatInt(time.Now().UnixNano(), 36)
		for i, r := range runFleet(t, processes, shared) {
			assert.Equal(t, childResult{OK: calls}, r, "process %d", i)
		}
		st := sb.Stats()
		assert.Zero(t, st.RateLimited, "no 429 from the quota")
		assert.Equal(t, int64(processes*calls), st.Requests[op], "one request per call: nothing was retried")
	})

	t.Run("WithRateLimit per process", func(t *testing.T) {
		sb.Clear(sandbox.Counts)
		var ok int64
		for _, r := range runFleet(t, processes, cfg) {
			ok += r.OK
		}
		st := sb.Stats()
		assert.Positive(t, st.RateLimited, "three processes at the rate each overrun the quota")
		assert.Greater(t, st.Requests[op], int64(processes*calls), "the 429s were retried")
		t.Logf("per-process limits: %d calls succeeded, %d requests, %d answered 429", ok, st.Requests[op], st.RateLimited)
	})
}
