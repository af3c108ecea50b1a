package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/upicollect/upicollect-go/reconcile"
)

// The variables of a delivery command's environment that name the event.
const (
	envDeliveryID = "UPICOLLECT_DELIVERY_ID"
	envOrderID    = "UPICOLLECT_ORDER_ID"
	envResult     = "UPICOLLECT_RESULT"
)

// What a delivery command's PATH, HOME and LANG are when this process has
// none to give (runLong says so).
const (
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
	defaultHome = "/"
	defaultLang = "C.UTF-8"
)

// maxStderr bounds what a delivery command's stderr adds to the log.
const maxStderr = 2 << 10

// stderrDrain is how long the log still reads a delivery command's stderr
// once its process group is gone: only a process that left the group
// (setsid) can hold the pipe open, and what it writes later is not the
// delivery's.
const stderrDrain = 200 * time.Millisecond

// childEnv is the whole environment of a delivery command but for the
// event's own variables: PATH, HOME and LANG, from getenv (this process's
// environment) when it has them, else the defaults. Nothing else of this
// environment goes to the command: not the service's keys, the webhook
// secret, the ledger's DSN, PGPASSWORD or any variable the CLI does not
// know to be harmless. PATH keeps only absolute directories: an empty or
// relative entry would run a program from the sweeper's working
// directory.
func childEnv(getenv func(string) string) []string {
	var dirs []string
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	path := strings.Join(dirs, string(filepath.ListSeparator))
	if path == "" {
		path = defaultPath
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		home = defaultHome
	}
	lang := getenv("LANG")
	if lang == "" {
		lang = defaultLang
	}
	return []string{"PATH=" + path, "HOME=" + home, "LANG=" + lang}
}

// execDelivery runs a command per event.
type execDelivery struct {
	command string
	timeout time.Duration
	env     []string // childEnv's
}

// deliver runs the command with the event's Delivery JSON on stdin. Exit
// 0 is delivered, whatever the command left running; anything else is an
// error that quotes the command's stderr (at most maxStderr bytes,
// escaped).
func (x *execDelivery) deliver(ctx context.Context, e reconcile.Event) error {
	body, id, err := deliveryJSON(e)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", x.command)
	cmd.Env = append(append([]string(nil), x.env...),
		envDeliveryID+"="+id, envOrderID+"="+e.Order.ID, envResult+"="+string(e.Result))
	stderr := &boundedBuffer{max: maxStderr}
	// One line on stdin: line-based tools read it whole.
	killed, err := runInGroup(ctx, cmd, append(body, '\n'), stderr)
	if err == nil {
		return nil
	}
	what := err.Error()
	if killed && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		what = fmt.Sprintf("killed after --deliver-timeout %v", x.timeout)
	}
	if s := stderr.String(); s != "" {
		what += "; stderr: " + s
	}
	return fmt.Errorf("exec delivery failed (%s)", what)
}

// runInGroup runs cmd in a process group of its own with stdin on its
// standard input and its standard error written to stderr, until it exits
// or ctx ends; killed says ctx ended it. Either way every process left in
// the group is then killed: a background child of the command (a shell's
// `cmd &`, a nohup'd mailer) neither outlives the delivery nor holds it
// open. The error is cmd's exit status (nil for 0), whatever the
// command's children did with its output; stderr has what was read by the
// time the group was gone (and stderrDrain after, for a process that left
// the group).
func runInGroup(ctx context.Context, cmd *exec.Cmd, stdin []byte, stderr io.Writer) (killed bool, err error) {
	// The pipes are the command's own files, not os/exec's copying
	// goroutines, so that waiting for the command never waits for the
	// processes that inherited them.
	inR, inW, err := os.Pipe()
	if err != nil {
		return false, err
	}
	defer inW.Close() // ends a write the command never read
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		return false, err
	}
	defer errR.Close()
	cmd.Stdin, cmd.Stderr = inR, errW
	setGroup(cmd)
	err = cmd.Start()
	inR.Close()
	errW.Close()
	if err != nil {
		return false, err
	}
	go func() {
		_, _ = inW.Write(stdin)
		_ = inW.Close()
	}()
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(stderr, errR)
	}()

	type exit struct {
		reaped bool
		err    error
	}
	exited := make(chan exit, 1)
	go func() {
		reaped, err := awaitExit(cmd)
		exited <- exit{reaped, err}
	}()
	var ex exit
	select {
	case ex = <-exited:
	case <-ctx.Done():
		killed = true
		_ = killGroup(cmd)
		ex = <-exited
	}
	// The command has exited, and (see awaitExit) is not reaped yet: its
	// group's id names no other group.
	_ = killGroup(cmd)
	if !ex.reaped {
		ex.err = cmd.Wait()
	}
	drain := time.NewTimer(stderrDrain)
	defer drain.Stop()
	select {
	case <-read:
	case <-drain.C: // errR's Close ends the read
	}
	return killed, ex.err
}

// boundedBuffer keeps the first max bytes written to it and counts the
// rest. It is safe for one writer and readers at once.
type boundedBuffer struct {
	max     int
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := max(b.max-b.buf.Len(), 0); room < n {
		b.dropped += n - room
		p = p[:room]
	}
	b.buf.Write(p)
	return n, nil
}

// String is what was kept, quoted (every control character escaped), with
// how much was dropped.
func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.TrimSpace(b.buf.String())
	if s == "" && b.dropped == 0 {
		return ""
	}
	out := fmt.Sprintf("%q", s)
	if b.dropped > 0 {
		out += fmt.Sprintf(" (%d more bytes)", b.dropped)
	}
	return out
}
