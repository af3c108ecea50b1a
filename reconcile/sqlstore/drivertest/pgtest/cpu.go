package pgtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU is the CPU time (user + system) the server has used so far: all is
// every process of it (the postmaster, its live processes, and those it
// has reaped), backends the part of it its live client connections'
// backends used (the rest is the server's own work beside the
// statements: autovacuum, the WAL writer, the checkpointer). Both are
// zero when the processes cannot be read (not Linux). A benchmark prints
// the difference over a run per item: CPU per item says what the work
// costs where wall time, on a machine other work shares, does not.
func (s *Server) CPU() (all, backends time.Duration) { return ProcessCPU(s.PID()) }

// ProcessCPU is CPU for the server whose postmaster is pid (its PID), read
// from /proc: the postmaster's own and reaped children's times, its live
// children's, and of those the client backends' (their title names a
// loopback client, "postgres: user db 127.0.0.1(port) …").
func ProcessCPU(postmaster int) (all, backends time.Duration) {
	if postmaster <= 0 {
		return 0, 0
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
			if cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); strings.Contains(string(cmd), "127.0.0.1(") {
				clients += n(14) + n(15)
			}
		}
	}
	const tick = time.Second / 100 // USER_HZ is 100 on Linux
	return time.Duration(ticks) * tick, time.Duration(clients) * tick
}
