package status

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// clearLine returns to the start of the line and clears it.
const clearLine = "\r\x1b[2K"

// progress draws a batch's progress on a terminal's line: a bar when the
// total is known, the count, the failures and the rate. It redraws at most
// every progressEvery so that a fast batch does not flood the terminal.
type progress struct {
	w        io.Writer
	now      func() time.Time
	total    int // 0: unknown (standard input)
	start    time.Time
	lastDraw time.Time
	done     int
	failed   int
	shown    bool // the bar is on its line (hide clears it)
}

// progressEvery is the shortest time between two redraws.
const progressEvery = 100 * time.Millisecond

func newProgress(w io.Writer, now func() time.Time, total int) *progress {
	p := &progress{w: w, now: now, total: total, start: now()}
	p.draw(p.start)
	return p
}

// add counts one finished check and redraws when it is time.
func (p *progress) add(failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	if t := p.now(); !p.shown || t.Sub(p.lastDraw) >= progressEvery || p.done == p.total {
		p.draw(t)
	}
}

// hide clears the bar's line, so that a line written to the same terminal
// (stdout's JSON line, when stdout is the terminal stderr draws on) starts
// at the left edge instead of after the bar; the next add draws it again
// below that line.
func (p *progress) hide() {
	if p.shown {
		_, _ = io.WriteString(p.w, clearLine)
		p.shown = false
	}
}

func (p *progress) draw(t time.Time) {
	p.lastDraw, p.shown = t, true
	_, _ = io.WriteString(p.w, clearLine+progressLine(p.done, p.failed, p.total, t.Sub(p.start)))
}

// finish clears the line and leaves one summary line.
func (p *progress) finish() {
	_, _ = io.WriteString(p.w, clearLine+progressLine(p.done, p.failed, 0, p.now().Sub(p.start))+"\n")
}

// progressWidth is the number of cells in the bar.
const progressWidth = 20

// progressLine is the text of the progress line: "[#####-----] 50/100
// checked, 2 failed, 12.5/s" with a total, "50 checked, 2 failed, 12.5/s"
// without.
func progressLine(done, failed, total int, elapsed time.Duration) string {
	var b strings.Builder
	if total > 0 {
		filled := min(done*progressWidth/total, progressWidth)
		fmt.Fprintf(&b, "[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", progressWidth-filled), done, total)
	} else {
		fmt.Fprintf(&b, "%d", done)
	}
	fmt.Fprintf(&b, " checked, %d failed, %s", failed, rate(done, elapsed))
	return b.String()
}

// rate is done per second over elapsed: "12.5/s", or "-/s" before any
// time has passed.
func rate(done int, elapsed time.Duration) string {
	if elapsed <= 0 {
		return "-/s"
	}
	return fmt.Sprintf("%.1f/s", float64(done)/elapsed.Seconds())
}
