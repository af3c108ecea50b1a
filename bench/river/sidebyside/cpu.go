package sidebyside

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPU is the CPU time (user + system) used so far, split by who used it.
type CPU struct {
	// Go is this process's (getrusage RUSAGE_SELF): the benchmark's
	// goroutines, River's client or the ledger's loop, the drivers.
	Go time.Duration
	// Backends is the part of the PostgreSQL server's time its live client
	// connections' backends used: the statements.
	Backends time.Duration
	// Rest is the rest of the server's: the postmaster, autovacuum, the WAL
	// writer, the checkpointer, the background writer, and the processes
	// it has reaped (closed connections included).
	Rest time.Duration
}

// Sub is c − o, part by part.
func (c CPU) Sub(o CPU) CPU {
	return CPU{Go: c.Go - o.Go, Backends: c.Backends - o.Backends, Rest: c.Rest - o.Rest}
}

// Total is the three parts added up.
func (c CPU) Total() time.Duration { return c.Go + c.Backends + c.Rest }

// userHZ is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on Linux).
const userHZ = time.Second / 100

// ReadCPU reads the CPU used so far by this process and by the PostgreSQL
// server whose postmaster is postmaster (0: none; the server's parts are
// then zero, as they are where /proc cannot be read). It is the logic of
// reconcile/sqlstore/drivertest's cpuTimes (test code of another module,
// which this one may not import): the postmaster's own and reaped
// children's times, its live children's, and among those the client
// backends' (a process title "postgres: user db 127.0.0.1(port) …").
func ReadCPU(postmaster int) CPU {
	var c CPU
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.Go = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if postmaster == 0 {
		return c
	}
	pm := strconv.Itoa(postmaster)
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks, clients int64
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f, ok := statFields(string(b))
		if !ok {
			continue
		}
		pid := filepath.Base(filepath.Dir(p))
		switch {
		case pid == pm:
			ticks += f.utime + f.stime + f.cutime + f.cstime
		case f.ppid == pm:
			ticks += f.utime + f.stime
			if cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); clientBackend(string(cmd)) {
				clients += f.utime + f.stime
			}
		}
	}
	c.Backends = time.Duration(clients) * userHZ
	c.Rest = time.Duration(ticks-clients) * userHZ
	return c
}

// stat is what ReadCPU takes of a /proc/<pid>/stat line.
type stat struct {
	ppid                         string
	utime, stime, cutime, cstime int64
}

// statFields parses a /proc/<pid>/stat line: the fields after the
// command's closing parenthesis are state (3), ppid (4), …, utime (14),
// stime (15), cutime (16), cstime (17).
func statFields(line string) (stat, bool) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 15 {
		return stat{}, false
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	return stat{ppid: f[1], utime: n(14), stime: n(15), cutime: n(16), cstime: n(17)}, true
}

// clientBackend reports whether a PostgreSQL process's title is a client
// connection's backend: "postgres: user db 127.0.0.1(port) …".
func clientBackend(cmdline string) bool { return strings.Contains(cmdline, "127.0.0.1(") }

// LoadAverage is the machine's 1, 5 and 15 minute load averages as
// /proc/loadavg gives them ("?" when unknown).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
