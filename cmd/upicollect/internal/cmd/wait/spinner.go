package wait

import (
	"fmt"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"io"
	"sync"
	"time"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const (
	clearLine = "\r\x1b[2K"
	ansiReset = "\x1b[0m"
)

// statusColors are the ANSI colours of the states (NO_COLOR turns them off).
var statusColors = map[string]string{
	"PENDING": "\x1b[33m", // yellow
	"SUCCESS": "\x1b[32m", // green
	"FAIL":    "\x1b[31m", // red
	"REJECT":  "\x1b[31m",
}

// spinnerFrame renders frame n of the spinner line: a glyph, the order, the
// time waited and the current status.
func spinnerFrame(n int, orderID string, elapsed time.Duration, status string, color bool) string {
	if status == "" {
		status = "checking"
	}
	orderID, status = iostreams.TerminalSafe(orderID), iostreams.TerminalSafe(status)
	if c, ok := statusColors[status]; ok && color {
		status = c + status + ansiReset
	}
	return fmt.Sprintf("%s%s waiting for %s  %s  %s", clearLine,
		spinnerFrames[n%len(spinnerFrames)], orderID, formatElapsed(elapsed), status)
}

// formatElapsed writes d as m:ss, or h:mm:ss from an hour on.
func formatElapsed(d time.Duration) string {
	s := int64(d / time.Second)
	if s < 0 {
		s = 0
	}
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// spinner redraws its line on w ten times a second until stop.
type spinner struct {
	w       io.Writer
	orderID string
	color   bool
	start   time.Time

	mu     sync.Mutex
	status string

	done    chan struct{}
	stopped chan struct{}
}

func startSpinner(w io.Writer, orderID string, color bool) *spinner {
	s := &spinner{w: w, orderID: orderID, color: color, start: time.Now(),
		done: make(chan struct{}), stopped: make(chan struct{})}
	go s.loop()
	return s
}

func (s *spinner) setStatus(st string) {
	s.mu.Lock()
	s.status = st
	s.mu.Unlock()
}

func (s *spinner) loop() {
	defer close(s.stopped)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for n := 0; ; n++ {
		s.mu.Lock()
		line := spinnerFrame(n, s.orderID, time.Since(s.start), s.status, s.color)
		s.mu.Unlock()
		io.WriteString(s.w, line)
		select {
		case <-s.done:
			io.WriteString(s.w, clearLine)
			return
		case <-t.C:
		}
	}
}

// stop clears the line and returns once the spinner has stopped drawing.
func (s *spinner) stop() {
	close(s.done)
	<-s.stopped
}
