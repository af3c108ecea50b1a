package main

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmd/root"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// batchLine is one line of `status --from-file`, as a script reads it.
type batchLine struct {
	OrderID   string `json:"order_id"`
	TxnStatus string `json:"txn_status"`
	UTR       string `json:"utr"`
	Error     *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
}

// readBatch parses JSON lines by order id; every line must be JSON.
func readBatch(t *testing.T, out string) map[string]batchLine {
	t.Helper()
	got := map[string]batchLine{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l batchLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %q", sc.Text())
		_, dup := got[l.OrderID]
		require.False(t, dup, "order %s reported twice", l.OrderID)
		got[l.OrderID] = l
	}
	return got
}

// batchSandbox is a sandbox with one paid, one rejected and one pending
// order, and a file listing them with an unknown order and blank lines.
func batchSandbox(t *testing.T) (*sandbox.Server, []string, string) {
	s := sandbox.Start(t)
	env := sandboxEnv(s)
	for _, id := range []string{"batch-paid", "batch-rejected", "batch-pending"} {
		require.Equal(t, exitOK, cli(t, env, "", intentArgs(id)...).code)
	}
	pay(t, s, "batch-paid", "SUCCESS", "111122223333")
	pay(t, s, "batch-rejected", "REJECT", "")
	list := "batch-paid\n\n  batch-rejected  \nbatch-pending\nbatch-nobody\n"
	path := filepath.Join(t.TempDir(), "orders.txt")
	require.NoError(t, os.WriteFile(path, []byte(list), 0o600))
	return s, env, path
}

func TestStatusFromFile(t *testing.T) {
	_, env, path := batchSandbox(t)
	list, err := os.ReadFile(path)
	require.NoError(t, err)
	for name, r := range map[string]result{
		"file":  cli(t, env, "", "status", "--from-file", path),
		"stdin": cli(t, env, string(list), "status", "--from-file", "-", "--concurrency", "2"),
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, exitOK, r.code, "every order checked: %s", r.output())
			assert.Empty(t, r.stderr, "no progress on a pipe")
			got := readBatch(t, r.stdout)
			assert.Len(t, got, 4, "blank lines skipped, spaces trimmed")
			assert.Equal(t, "SUCCESS", got["batch-paid"].TxnStatus)
			assert.Equal(t, "111122223333", got["batch-paid"].UTR)
			assert.Equal(t, "REJECT", got["batch-rejected"].TxnStatus, "a final state is data, not a failure")
			assert.Equal(t, "PENDING", got["batch-pending"].TxnStatus)
			assert.Equal(t, "PENDING", got["batch-nobody"].TxnStatus)
		})
	}
}

func TestStatusFromFileErrors(t *testing.T) {
	s, env, _ := batchSandbox(t)
	r := cli(t, env, "batch-paid\nbad id\n", "status", "--from-file", "-")
	assert.Equal(t, exitUsage, r.code, "the exit code of the order that could not be checked: %s", r.output())
	got := readBatch(t, r.stdout)
	assert.Equal(t, "SUCCESS", got["batch-paid"].TxnStatus, "the others are still checked")
	require.NotNil(t, got["bad id"].Error, r.stdout)
	assert.Equal(t, "validation", got["bad id"].Error.Kind)

	wrong := append(sandboxEnv(s), envSecretKey+"=wrong")
	r = cli(t, wrong, strings.Repeat("batch-paid\n", 50), "status", "--from-file", "-", "--concurrency", "1")
	assert.Equal(t, exitUnauthorized, r.code, r.output())
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	assert.Less(t, len(lines), 50, "a rejected key stops the batch")
	assert.Contains(t, lines[0], `"kind":"unauthorized"`)

	for _, args := range [][]string{
		{"status", "X", "--from-file", "-"},
		{"status", "--from-file", filepath.Join(t.TempDir(), "none")},
		{"status", "--from-file", "-", "--dry-run"},
	} {
		r := cli(t, env, "", args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.output())
		assert.Empty(t, r.stdout)
	}
}

// TestStatusFromFileProgress: on a terminal, stderr shows a bar with the
// count and the rate (on the run's clock), and a summary at the end.
func TestStatusFromFileProgress(t *testing.T) {
	_, env, path := batchSandbox(t)
	var stdout, stderr iostreams.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	a := newFactory(ctx, strings.NewReader(""), envFunc(env), &stdout, &stderr)
	a.IOStreams.StderrTTY = true
	clock := time.Unix(0, 0)
	a.IOStreams.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	require.Equal(t, exitOK, root.Execute(a, []string{"status", "--from-file", path}))
	assert.Len(t, readBatch(t, stdout.String()), 4, "stdout is the same JSON lines")
	progress := stderr.String()
	assert.Contains(t, progress, clearLine+"[--------------------] 0/4 checked, 0 failed, -/s")
	assert.Contains(t, progress, "[####################] 4/4 checked, 0 failed, ")
	assert.True(t, strings.HasSuffix(progress, clearLine+"4 checked, 0 failed, 0.8/s\n"), "summary line: %q", progress)
}

// TestStatusFromFileInterrupted: Ctrl-C ends a batch that waits for its
// next order id on a terminal.
func TestStatusFromFileInterrupted(t *testing.T) {
	_, env, _ := batchSandbox(t)
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	run := runInBackground(env, stdinR, "status", "--from-file", "-")
	defer run.cancel()
	_, err := stdinW.Write([]byte("batch-paid\n"))
	require.NoError(t, err)
	code, _ := run.interrupt(t)
	assert.Equal(t, exitInterrupted, code, run.stderr.String())
	assert.Contains(t, run.stderr.String(), "upicollect: interrupted")
}

// screenLines is what a terminal shows after out: "\r\x1b[2K" clears the
// line being written, "\n" ends it. The line still being written, if any,
// is the last.
func screenLines(out string) []string {
	var lines []string
	var cur strings.Builder
	for len(out) > 0 {
		switch {
		case strings.HasPrefix(out, clearLine):
			cur.Reset()
			out = out[len(clearLine):]
		case out[0] == '\n':
			lines = append(lines, cur.String())
			cur.Reset()
			out = out[1:]
		default:
			cur.WriteByte(out[0])
			out = out[1:]
		}
	}
	return append(lines, cur.String())
}

// TestStatusFromFileSharedTerminal: when stdout and stderr are one
// terminal, the bar makes way for every JSON line, so the screen shows
// whole JSON lines and the summary, never a bar with JSON after it; the
// bar still shows between lines.
func TestStatusFromFileSharedTerminal(t *testing.T) {
	_, env, path := batchSandbox(t)
	for _, tt := range []struct {
		name      string
		stdoutTTY bool
	}{
		{"one terminal", true},
		{"stdout redirected", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var term, file iostreams.SyncBuffer
			ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
			defer cancel()
			stdout := &file
			if tt.stdoutTTY {
				stdout = &term
			}
			a := newFactory(ctx, strings.NewReader(""), envFunc(env), stdout, &term)
			a.IOStreams.StderrTTY, a.IOStreams.StdoutTTY = true, tt.stdoutTTY
			clock := time.Unix(0, 0)
			a.IOStreams.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock } // faster than progressEvery
			require.Equal(t, exitOK, root.Execute(a, []string{"status", "--from-file", path, "--concurrency", "1"}))

			screen := screenLines(term.String())
			require.Equal(t, "", screen[len(screen)-1], "the screen ends on a fresh line: %q", term.String())
			screen = screen[:len(screen)-1]
			require.NotEmpty(t, screen)
			assert.Regexp(t, `^4 checked, 0 failed, [0-9.]+/s$`, screen[len(screen)-1], "the summary last")
			jsonLines := strings.Join(screen[:len(screen)-1], "\n")
			if !tt.stdoutTTY {
				jsonLines = file.String()
				assert.Len(t, screen, 1, "only the summary on the terminal: %q", term.String())
				assert.Equal(t, 1, strings.Count(term.String(), "0/4 checked"), "the bar drawn once at the start, not per line")
			} else {
				assert.Equal(t, 4, strings.Count(term.String(), clearLine+"[#####"), "the bar drawn again after each of the 4 lines: %q", term.String())
			}
			assert.Len(t, readBatch(t, jsonLines), 4, "every line on the screen is a whole JSON line")
		})
	}
}
