package drivertest_test

import (
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// cpuTimes is the CPU time (user + system) this process and the
// PostgreSQL server whose postmaster is postmaster have used so far (see
// pgtest.ProcessCPU: pg is all of the server's, backends the part its
// client connections' backends used); pg and backends are zero when there
// is no server (postmaster 0). TestLedgerThroughput prints the difference
// over a pass per order: whether one sweeper already keeps the cores busy
// is a matter of CPU per order, not of wall time on a machine other work
// shares.
func cpuTimes(postmaster int) (self, pg, backends time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	pg, backends = pgtest.ProcessCPU(postmaster)
	return self, pg, backends
}

// loadAverage is the machine's one-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
