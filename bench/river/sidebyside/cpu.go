package sidebyside

import (
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
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

// ReadCPU reads the CPU used so far by this process and by the PostgreSQL
// server whose postmaster is postmaster (0: none; the server's parts are
// then zero, as they are where /proc cannot be read): the server's as
// pgtest.ProcessCPU reads it, its client backends' part apart.
func ReadCPU(postmaster int) CPU {
	var c CPU
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.Go = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	all, backends := pgtest.ProcessCPU(postmaster)
	c.Backends, c.Rest = backends, all-backends
	return c
}

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
