// Command fleet measures what a rate limit shared through Redis fixes: a
// fleet of processes, each with many callers, checks statuses against a
// sandbox whose quota is the fleet's rate. It runs twice: with redisrate
// (one limit in Redis for the fleet) and with WithRateLimit (the same limit
// in each process). It reports each process's rate, the total the sandbox
// accepted against the limit, the quota's 429s (from the sandbox's
// statistics) and what the limiter costs per call, and writes JSON for the
// budget and chart programs.
//
//	go run ./cmd/fleet -out results/fleet.json
//
// The quota's rate is the fleet's; its burst is larger (-quota-burst-factor),
// so that a loaded machine's scheduling, which bunches requests, does not
// read as a limiter's fault. It starts a redis-server of its own
// (redis-server must be installed) and re-executes itself for each process
// of the fleet.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/redisrate/redistest"
	"github.com/upicollect/upicollect-go/sandbox"
)

// childEnv carries a fleet member's configuration, as JSON, to the
// re-executed program.
const childEnv = "UPICOLLECT_FLEET_MEMBER"

func main() {
	var (
		processes = flag.Int("processes", 4, "processes in the fleet")
		callers   = flag.Int("callers", 64, "concurrent callers per process")
		rate      = flag.Float64("rate", 200, "the quota and the fleet's limit, requests per second")
		burst     = flag.Int("burst", 20, "the limiters' burst")
		slack     = flag.Int("quota-burst-factor", 4, "the quota's burst as a multiple of the limiters' (the rate is the same)")
		duration  = flag.Duration("duration", 5*time.Second, "length of each fleet run")
		rounds    = flag.Int("cost-rounds", 5, "interleaved rounds of the limiter-cost measurement (medians are kept)")
		out       = flag.String("out", "results/fleet.json", "output file")
	)
	flag.Parse()
	log.SetFlags(0)
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(member(cfg))
	}
	res, err := run(*processes, *callers, *rate, *burst, *slack**burst, *duration, *rounds)
	if err != nil {
		log.Fatal(err)
	}
	if err := results.WriteFleet(*out, res); err != nil {
		log.Fatal(err)
	}
}

// run is the fleet program's parent: Redis, the sandbox, the cost
// measurement and both fleet runs.
func run(processes, callers int, rate float64, burst, quotaBurst int, duration time.Duration, rounds int) (*results.Fleet, error) {
	redisSrv, err := redistest.New()
	if err != nil {
		return nil, err
	}
	defer redisSrv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: redisSrv.Addr})
	defer rdb.Close()

	res := &results.Fleet{
		Machine: results.ThisMachine(), Processes: processes, Callers: callers, Limit: rate, Burst: burst, QuotaBurst: quotaBurst,
		Duration: duration.String(),
	}
	if res.Cost, err = limiterCost(rdb, rounds); err != nil {
		return nil, err
	}
	for _, c := range res.Cost {
		log.Printf("limiter cost %-14s %8.0f ns/call  %5.1f allocs/call  (%+.0f ns, %+.1f allocs against none; medians of %d rounds)",
			c.Limiter, c.NsPerCall, c.AllocsPerCall, c.NsPerCall-res.Cost[0].NsPerCall, c.AllocsPerCall-res.Cost[0].AllocsPerCall, rounds)
	}

	// The quota has the fleet's rate and a larger burst: a loaded machine's
	// scheduler can hold back requests the limiter let go and then send
	// them together, beyond the 50 ms of bunching the sandbox forgives.
	// The burst forgives more without changing the rate, which the limiter
	// alone holds.
	sb := sandbox.New(sandbox.WithRateLimit(rate, quotaBurst))
	defer sb.Close()
	creds := sb.Credentials()
	for _, limiter := range []string{"redisrate", "WithRateLimit"} {
		cfg := memberConfig{
			BaseURL: sb.URL(), MID: creds.MID, PublicKey: creds.PublicKey, SecretKey: creds.SecretKey,
			PerSecond: rate, Burst: burst, Callers: callers, Duration: duration,
		}
		if limiter == "redisrate" {
			cfg.RedisAddr, cfg.Key = redisSrv.Addr, "fleet-"+strconv.FormatInt(time.Now().UnixNano(), 36)
		}
		sb.Clear(sandbox.Counts)
		members, err := runFleet(processes, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", limiter, err)
		}
		st := sb.Stats()
		r := results.FleetRun{
			Limiter: limiter, Members: members,
			Accepted: st.Answers[200], RateLimited: st.RateLimited, Requests: st.Requests["checkPaymentStatus"],
		}
		r.AcceptedPerSecond = float64(r.Accepted) / duration.Seconds()
		for _, m := range members {
			r.Calls += m.OK
			r.Failed += m.Failed
		}
		log.Printf("%-13s %d processes: %s", limiter, processes, r.Summary(rate))
		for i, m := range members {
			log.Printf("    process %d: %6.1f calls/s  %5d ok  %4d failed  %4d attempts answered 429  limiter wait %.1f ms/call",
				i+1, m.PerSecond, m.OK, m.Failed, m.Saw429, m.WaitMillisPerCall)
		}
		res.Runs = append(res.Runs, r)
	}
	return res, nil
}

// limiterCost measures a status check against a sandbox without quota
// with no limiter, WithRateLimit and redisrate, both at a rate that never
// makes a caller wait: the differences are what the limiters cost. Each
// round measures each in turn (testing.Benchmark, about a second each), so
// the rounds interleave them; the medians are kept, as load on a shared
// machine comes and goes.
func limiterCost(rdb *redis.Client, rounds int) ([]results.LimiterCost, error) {
	sb := sandbox.New()
	defer sb.Close()
	key := "cost-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	limiters := []struct {
		name string
		opts []upicollect.Option
	}{
		{"none", nil},
		{"WithRateLimit", []upicollect.Option{upicollect.WithRateLimit(1e6, 1e6)}},
		{"redisrate", []upicollect.Option{upicollect.WithRateLimiter(redisrate.New(rdb, key, 1e6, 1e6))}},
	}
	ns := make([][]float64, len(limiters))
	allocs := make([][]float64, len(limiters))
	ctx := context.Background()
	for round := 0; round < max(rounds, 1); round++ {
		for i, l := range limiters {
			c := sb.Client(l.opts...)
			if _, err := c.CheckPaymentStatus(ctx, "ord-cost"); err != nil { // connect outside the timing
				return nil, fmt.Errorf("limiter cost %s: %w", l.name, err)
			}
			var callErr error
			r := testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for n := 0; n < b.N && callErr == nil; n++ {
					_, callErr = c.CheckPaymentStatus(ctx, "ord-cost")
				}
			})
			c.CloseIdleConnections()
			if callErr != nil {
				return nil, fmt.Errorf("limiter cost %s: %w", l.name, callErr)
			}
			ns[i] = append(ns[i], float64(r.NsPerOp()))
			allocs[i] = append(allocs[i], float64(r.AllocsPerOp()))
		}
	}
	out := make([]results.LimiterCost, len(limiters))
	for i, l := range limiters {
		out[i] = results.LimiterCost{Limiter: l.name, NsPerCall: median(ns[i]), AllocsPerCall: median(allocs[i])}
	}
	return out, nil
}

// median is the middle of xs (the mean of the two middle ones for an even
// count); it sorts xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// memberConfig is what a fleet member is told.
type memberConfig struct {
	BaseURL   string        `json:"base_url"`
	MID       string        `json:"mid"`
	PublicKey string        `json:"public_key"`
	SecretKey string        `json:"secret_key"`
	RedisAddr string        `json:"redis_addr"` // "": WithRateLimit in the process
	Key       string        `json:"key"`
	PerSecond float64       `json:"per_second"`
	Burst     int           `json:"burst"`
	Callers   int           `json:"callers"`
	Duration  time.Duration `json:"duration"`
}

// runFleet starts n members, starts their callers together once all are
// ready, and returns what each reports.
func runFleet(n int, cfg memberConfig) ([]results.FleetMember, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		lines chan string
	}
	procs := make([]proc, n)
	defer func() {
		for _, p := range procs {
			if p.cmd != nil && p.cmd.Process != nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	}()
	for i := range procs {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), childEnv+"="+string(b))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		lines := make(chan string, 2)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		procs[i] = proc{cmd: cmd, stdin: stdin, lines: lines}
	}
	bound := cfg.Duration + time.Minute
	next := func(p proc) (string, error) {
		select {
		case s, ok := <-p.lines:
			if !ok {
				return "", errors.New("a member exited early")
			}
			return s, nil
		case <-time.After(bound):
			return "", errors.New("a member did not answer")
		}
	}
	for _, p := range procs {
		if s, err := next(p); err != nil || s != "ready" {
			return nil, fmt.Errorf("member not ready: %q %v", s, err)
		}
	}
	for _, p := range procs {
		if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
			return nil, err
		}
	}
	members := make([]results.FleetMember, n)
	for i, p := range procs {
		s, err := next(p)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(s), &members[i]); err != nil {
			return nil, fmt.Errorf("member %d: %q: %w", i+1, s, err)
		}
	}
	return members, nil
}

// member is one process of the fleet: it prints "ready", waits for a line
// on stdin so that all members start together, runs its callers for the
// duration, and prints what it saw as JSON.
func member(raw string) int {
	var cfg memberConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		log.Print(err)
		return 2
	}
	obs := &counter{}
	opts := []upicollect.Option{upicollect.WithBaseURL(cfg.BaseURL), upicollect.WithObserver(obs),
		upicollect.WithMaxConns(cfg.Callers)}
	if cfg.RedisAddr != "" {
		rdb := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, MaxRetries: -1, DialerRetries: 1, PoolSize: 4})
		defer rdb.Close()
		if err := rdb.Ping(context.Background()).Err(); err != nil { // connected before the start
			log.Print(err)
			return 2
		}
		opts = append(opts, upicollect.WithRateLimiter(redisrate.New(rdb, cfg.Key, cfg.PerSecond, cfg.Burst)))
	} else {
		opts = append(opts, upicollect.WithRateLimit(cfg.PerSecond, cfg.Burst))
	}
	c, err := upicollect.NewClient(upicollect.Credentials{MID: cfg.MID, PublicKey: cfg.PublicKey, SecretKey: cfg.SecretKey}, opts...)
	if err != nil {
		log.Print(err)
		return 2
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration)
	defer cancel()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < cfg.Callers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_, err := c.CheckPaymentStatus(ctx, "ord-fleet")
				switch {
				case err == nil:
					ok.Add(1)
				case ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded):
					// A call the deadline cut (or would have: the limiter
					// foresees it) is neither ok nor failed.
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	m := results.FleetMember{
		OK: ok.Load(), Failed: failed.Load(), PerSecond: float64(ok.Load()) / cfg.Duration.Seconds(),
		Saw429: obs.saw429.Load(),
	}
	if n := obs.attempts.Load(); n > 0 {
		m.WaitMillisPerCall = float64(obs.waitNanos.Load()) / float64(n) / 1e6
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))
	return 0
}

// counter is the members' Observer: attempts answered 429, and the time
// attempts waited for the limiter.
type counter struct {
	upicollect.NopObserver
	attempts, saw429, waitNanos atomic.Int64
}

func (o *counter) EndAttempt(_ context.Context, _ upicollect.CallInfo, a upicollect.AttemptEnd) {
	o.attempts.Add(1)
	o.waitNanos.Add(int64(a.RateLimitWait))
	if a.HTTPStatus == 429 {
		o.saw429.Add(1)
	}
}
