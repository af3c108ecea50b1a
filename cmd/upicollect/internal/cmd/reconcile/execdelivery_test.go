package reconcile

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/webhook"
	"github.com/upicollect/upicollect-go/sandbox"
)

// TestChildEnv: a delivery command's environment is PATH, HOME and LANG,
// from this one when it has them, else the defaults; nothing else.
func TestChildEnv(t *testing.T) {
	secrets := map[string]string{cmdutil.EnvSecretKey: "sk", envWebhookSecret: "whsec", envDSN: "postgres://u:p@h/db",
		"PGPASSWORD": "pgpw", "PGPASSFILE": "/root/.pgpass", "PGUSER": "shop", envOrderID: "stale", "LC_ALL": "C"}
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"all three", map[string]string{"PATH": "/opt/php/bin:/usr/bin", "HOME": "/home/shop", "LANG": "hi_IN.UTF-8"},
			[]string{"PATH=/opt/php/bin:/usr/bin", "HOME=/home/shop", "LANG=hi_IN.UTF-8"}},
		{"none", nil, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/", "LANG=C.UTF-8"}},
		{"relative PATH entries dropped", map[string]string{"PATH": ":.:bin:/opt/php/bin::./x:/bin:"},
			[]string{"PATH=/opt/php/bin:/bin", "HOME=/", "LANG=C.UTF-8"}},
		{"only relative PATH entries", map[string]string{"PATH": ".:bin:"}, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/", "LANG=C.UTF-8"}},
		{"relative HOME", map[string]string{"HOME": "shop"}, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/", "LANG=C.UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range secrets {
				env[k] = v
			}
			for k, v := range tt.env {
				env[k] = v
			}
			assert.Equal(t, tt.want, childEnv(func(k string) string { return env[k] }))
		})
	}
}

// shellOwn are the variables /bin/sh puts in an environment it was given
// empty (dash: PWD; bash: PWD, SHLVL, _): what `env` prints of its own.
func shellOwn(t *testing.T) map[string]bool {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "env")
	cmd.Env = []string{}
	out, err := cmd.Output()
	require.NoError(t, err)
	own := map[string]bool{}
	for _, kv := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, _, _ := strings.Cut(kv, "=")
		own[name] = true
	}
	return own
}

// TestRunExecEnvironment runs `env` as the delivery command: it sees the
// delivery's three variables and PATH, HOME and LANG (this process's, or
// the defaults), and none of the CLI's secrets, though the CLI had them
// all: the service's keys, the webhook secret, the ledger's DSN, every PG*
// variable, anything else.
func TestRunExecEnvironment(t *testing.T) {
	testPath := os.Getenv("PATH") // where env is
	secrets := map[string]string{
		envWebhookSecret: "whsec_env_secret", envDSN: "postgres://shop:dsn_secret@127.0.0.1:1/shop",
		"PGPASSWORD": "pg_secret", "PGPASSFILE": "/root/.pgpass_secret", "PGUSER": "pguser_secret", "PGHOST": "pghost_secret",
		"PGSERVICEFILE": "/etc/pgservice_secret", "AWS_SECRET_ACCESS_KEY": "aws_secret", "SHOP_DSN": "mysql://u:shop_secret@h/db",
	}
	id := webhook.DeliveryID("ORD-ENV", reconcile.Paid)
	tests := []struct {
		name string
		env  map[string]string // besides the sandbox's credentials and secrets
		want []string
	}{
		{"from this environment", map[string]string{"PATH": testPath, "HOME": "/home/shop", "LANG": "hi_IN.UTF-8"},
			[]string{"HOME=/home/shop", "LANG=hi_IN.UTF-8", "PATH=" + testPath}},
		{"defaults", nil, []string{"HOME=/", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin"}},
	}
	own := shellOwn(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := newRunEnv(t)
			re.order(t, "ORD-ENV", 499, sandbox.StatusSuccess)
			for k, v := range secrets {
				re.env[k] = v
			}
			for k, v := range tt.env {
				re.env[k] = v
			}
			require.NotEmpty(t, re.env[cmdutil.EnvSecretKey], "the service's secret key is in the CLI's environment")
			out := filepath.Join(re.dir, "env.txt")
			_, stderr, err := re.run(context.Background(), "--once", "--deliver", "exec:env > "+out)
			require.NoError(t, err, stderr)
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			var got []string
			for _, kv := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if name, _, _ := strings.Cut(kv, "="); !own[name] {
					got = append(got, kv)
				}
			}
			sort.Strings(got)
			want := append([]string{envDeliveryID + "=" + id, envOrderID + "=ORD-ENV", envResult + "=paid"}, tt.want...)
			sort.Strings(want)
			assert.Equal(t, want, got)
			for name, v := range secrets {
				assert.NotContains(t, string(b), v, name)
			}
			assert.NotContains(t, string(b), re.env[cmdutil.EnvSecretKey])
		})
	}
}

// TestRunLongDocumentsTheEnvironment: the help lists exactly what
// childEnv and the delivery give.
func TestRunLongDocumentsTheEnvironment(t *testing.T) {
	assert.Contains(t, runLong, `                           Its environment is exactly:
                             UPICOLLECT_DELIVERY_ID  the delivery's id
                             UPICOLLECT_ORDER_ID     the order's id
                             UPICOLLECT_RESULT        the event: paid, failed, ...
                             PATH  the absolute directories of this PATH,
                                   else /usr/local/bin:/usr/bin:/bin
                             HOME  this HOME, else /
                             LANG  this LANG, else C.UTF-8
                           and nothing else of this environment: none of
                           its secrets (the service's keys, the webhook
                           secret, the DSN, PGPASSWORD or any PG* variable).
`)
	var names []string
	for _, kv := range childEnv(func(string) string { return "" }) {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	assert.Equal(t, []string{"PATH", "HOME", "LANG"}, names)
}

// awaitGone waits, bounded, for process pid to end (gone), polling /proc.
func awaitGone(t *testing.T, pid int) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !gone(pid) {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// readPID reads the process id a delivery command wrote to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

// TestRunExecBackgroundChild: a command's exit status decides, whatever a
// child it started keeps open; every child left in the command's process
// group is killed when the command has exited, so none outlives the
// delivery. A child that left the group (setsid) is out of reach: the
// delivery still ends, with what the command wrote by then.
func TestRunExecBackgroundChild(t *testing.T) {
	tests := []struct {
		name      string
		command   string // $PIDFILE gets the child's pid
		delivered bool
		wantErr   string
		escapes   bool // the child leaves the group: it lives on
	}{
		{"subshell holds stderr", `(sleep 30 >&2 & echo $! > $PIDFILE); exit 0`, true, "", false},
		{"child holds stderr", `sleep 30 >&2 & echo $! > $PIDFILE; exit 0`, true, "", false},
		{"child holds stdin", `sleep 30 <&0 & echo $! > $PIDFILE; exit 0`, true, "", false},
		{"nohup mailer", `nohup sleep 30 >/dev/null 2>&1 & echo $! > $PIDFILE; exit 0`, true, "", false},
		{"exit 0 and keep running", `sleep 30 >&2 & echo $! > $PIDFILE; echo queued >&2`, true, "", false},
		{"fails with a child", `sleep 30 >&2 & echo $! > $PIDFILE; echo no database >&2; exit 3`, false,
			`exec delivery failed (exit status 3; stderr: "no database")`, false},
		{"child in a session of its own", `setsid sh -c 'echo $$ > $0; exec sleep 30' $PIDFILE >&2 & ` +
			`while [ ! -s $PIDFILE ]; do :; done; exit 0`, true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := newRunEnv(t)
			re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
			pidFile := filepath.Join(re.dir, "child.pid")
			stdout, stderr, err := re.run(context.Background(), "--once", "--deliver",
				"exec:PIDFILE="+pidFile+"; "+tt.command)
			pid := readPID(t, pidFile)
			if tt.escapes {
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			if tt.delivered {
				require.NoError(t, err, stderr)
				assert.Contains(t, stdout, "paid      ORD-1  expected ₹499.00")
				assert.Contains(t, stdout, "paid 1, failed 0, late_paid 0, expired 0, mismatch 0, pending 0, errors 0;")
				assert.Empty(t, stderr)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, stdout, "paid 0, failed 0, late_paid 0, expired 0, mismatch 0, pending 0, errors 1;")
			}
			if tt.escapes {
				assert.False(t, gone(pid), "a process of another session is not the delivery's to kill")
				return
			}
			assert.True(t, awaitGone(t, pid), "the command's child %d outlived the delivery", pid)
		})
	}
}

// TestRunExecDeliveredOnce: a command that exits 0 while its child holds
// stderr delivers its events once: three --once runs, an hour apart (past
// any backoff), record each event at the first and deliver nothing again;
// no run leaves a child behind.
func TestRunExecDeliveredOnce(t *testing.T) {
	re := newRunEnv(t)
	re.order(t, "ORD-PAID", 499, sandbox.StatusSuccess)
	re.order(t, "ORD-FAIL", 10, sandbox.StatusFail)
	log := filepath.Join(re.dir, "deliveries")
	pids := filepath.Join(re.dir, "pids")
	deliver := fmt.Sprintf(`exec:echo "$UPICOLLECT_DELIVERY_ID" >> %s; (sleep 30 >&2 & echo $! >> %s); exit 0`, log, pids)
	for i, want := range []string{
		`checked 2, paid 1, failed 1, late_paid 0, expired 0, mismatch 0, pending 0, errors 0;`,
		`paid 0, failed 0, late_paid 0, expired 0, mismatch 0, pending \d+, errors 0;`, // the failed order is checked for a late payment
		`paid 0, failed 0, late_paid 0, expired 0, mismatch 0, pending \d+, errors 0;`,
	} {
		f, out, errOut := testFactory(re.env)
		f.IOStreams.Now = func() time.Time { return cmdtest.Now.Add(time.Duration(i) * time.Hour) }
		err := cmdtest.ExecuteIn(context.Background(), NewCmdRun(f, nil), "--dsn", re.dsn, "--once", "--deliver", deliver)
		require.NoError(t, err, "run %d: %s", i+1, errOut.String())
		assert.Regexp(t, want, out.String(), "run %d", i+1)
		assert.Empty(t, errOut.String(), "run %d", i+1)
	}
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	want := []string{webhook.DeliveryID("ORD-FAIL", reconcile.Failed), webhook.DeliveryID("ORD-PAID", reconcile.Paid)}
	sort.Strings(want)
	assert.Equal(t, want, sortedLines(string(b)), "each event delivered once over three runs")
	b, err = os.ReadFile(pids)
	require.NoError(t, err)
	children := sortedLines(string(b))
	assert.Len(t, children, 2, "one child per delivery")
	for _, p := range children {
		pid, err := strconv.Atoi(p)
		require.NoError(t, err)
		assert.True(t, awaitGone(t, pid), "child %d outlived its delivery", pid)
	}
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines)
	return lines
}

func TestBoundedBuffer(t *testing.T) {
	b := &boundedBuffer{max: 4}
	n, err := b.Write([]byte("abc"))
	assert.Equal(t, 3, n)
	require.NoError(t, err)
	n, _ = b.Write([]byte("def\n"))
	assert.Equal(t, 4, n, "a short write would fail the command's pipe")
	assert.Equal(t, `"abcd" (3 more bytes)`, b.String())
	assert.Empty(t, (&boundedBuffer{max: 4}).String())
}
