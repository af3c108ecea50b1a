package main

import (
	"io"
	"os"
)

// isTerminal reports whether w is a character device, which is what a
// terminal is. It asks the file's mode instead of the terminal driver so
// that the root module needs no terminal package: a character device that
// is not a terminal (/dev/null) is the one case it gets wrong, and there
// the spinner only writes into the void.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
