package drivertest_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTimes is the CPU time (user + system) this process and the
// PostgreSQL server have used so far: pg is all of the server's (the
// postmaster, its live processes, and those it has reaped), backends the
// part of it the live client connections' backends used (the rest is the
// server's own work beside the statements: autovacuum, the WAL writer, the
// checkpointer); both are zero when there is no server or its processes
// cannot be read (not Linux). TestLedgerThroughput prints the
// difference over a pass per order: whether one sweeper already keeps the
// cores busy is a matter of CPU per order, not of wall time on a machine
// other work shares.
func cpuTimes(postmaster int) (self, pg, backends time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if postmaster == 0 {
		return self, 0, 0
	}
	pm := strconv.Itoa(postmaster)
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks, clients int64
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state (3), ppid
		// (4), …, utime (14), stime (15), cutime (16), cstime (17).
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 15 {
			continue
		}
		pid := filepath.Base(filepath.Dir(p))
		n := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
		switch {
		case pid == pm:
			ticks += n(14) + n(15) + n(16) + n(17)
		case f[1] == pm:
			ticks += n(14) + n(15)
			// A client backend's title: "postgres: user db 127.0.0.1(port) …".
			if cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); strings.Contains(string(cmd), "127.0.0.1(") {
				clients += n(14) + n(15)
			}
		}
	}
	const tick = time.Second / 100 // USER_HZ is 100 on Linux
	return self, time.Duration(ticks) * tick, time.Duration(clients) * tick
}

// loadAverage is the machine's one-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
