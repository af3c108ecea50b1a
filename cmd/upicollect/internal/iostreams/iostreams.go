// Package iostreams holds the streams of one run of upicollect: standard
// input, output and error, whether each is a terminal, whether colour is
// wanted, and the filter that keeps every secret the run read out of what
// it prints.
package iostreams

import (
	"io"
	"time"
)

// IOStreams are the streams of one run. Out and ErrOut redact every secret
// registered with Secrets (see Secrets); In is read as given.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // redacting
	ErrOut io.Writer // redacting

	// StdoutTTY and StderrTTY say whether the stream is a terminal: a
	// spinner or a progress bar draws on stderr only when it is one, and
	// makes way for stdout's lines when stdout is the same terminal.
	StdoutTTY, StderrTTY bool

	// Now is the clock of progress rates, spinners and ledger steps;
	// tests set their own.
	Now func() time.Time

	getenv  func(string) string
	secrets *Secrets
}

// New returns the streams of a run over stdin, stdout and stderr, with
// getenv as its environment (TERM, NO_COLOR).
func New(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *IOStreams {
	s := &Secrets{}
	return &IOStreams{
		In:        stdin,
		Out:       &redactWriter{w: stdout, secrets: s},
		ErrOut:    &redactWriter{w: stderr, secrets: s},
		StdoutTTY: IsTerminal(stdout),
		StderrTTY: IsTerminal(stderr),
		Now:       time.Now,
		getenv:    getenv,
		secrets:   s,
	}
}

// Secrets is the run's filter of credentials: what is added to it never
// reaches Out or ErrOut.
func (s *IOStreams) Secrets() *Secrets { return s.secrets }

// ColorEnabled reports whether what is drawn may be coloured: not when
// NO_COLOR is set (https://no-color.org).
func (s *IOStreams) ColorEnabled() bool { return s.getenv("NO_COLOR") == "" }

// CanDraw reports whether a spinner or progress bar may draw on stderr:
// only for a person watching a terminal, never into jsonOut output, a
// pipe, a file or a dumb terminal.
func (s *IOStreams) CanDraw(jsonOut bool) bool {
	return canDraw(jsonOut, s.StderrTTY, s.getenv)
}

func canDraw(jsonOut, stderrTTY bool, getenv func(string) string) bool {
	return !jsonOut && stderrTTY && getenv("TERM") != "dumb"
}
