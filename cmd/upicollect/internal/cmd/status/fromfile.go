package status

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// lineJSON is one line of `status --from-file`: an order's status, or the
// error that kept it from being checked.
type lineJSON struct {
	JSON
	Error *cmdutil.ErrorBody `json:"error,omitempty"`
}

// fromFile checks every order id listed in opts.FromFile ("-": standard input),
// one a line, and prints one JSON line per order in completion order. On
// a terminal, stderr shows the progress. The exit code is 0 when every
// order was checked (whatever its state), else that of the first order
// that could not be; a rejected key stops the batch.
func fromFile(opts *StatusOptions, c *upicollect.Client) error {
	ios := opts.IO
	in, total, err := openIDs(ios, opts.FromFile)
	if err != nil {
		return cmdutil.UsageError(fmt.Errorf("--from-file: %w", err))
	}
	defer in.Close()
	ctx, cancel := context.WithCancel(opts.Ctx)
	defer cancel()
	ids, readErr := orderIDs(ctx, in)

	var bar *progress
	if ios.CanDraw(false) {
		bar = newProgress(ios.ErrOut, ios.Now, total)
	}
	var first error
	for st, err := range c.CheckPaymentStatuses(ctx, ids, upicollect.WithConcurrency(opts.Concurrency)) {
		line := lineJSON{}
		if err == nil {
			line.JSON = ToJSON(st)
		} else {
			code, kind := cmdutil.Classify(opts.Ctx, err)
			line.OrderID = upicollect.OrderIDOf(nil, err)
			line.Error = &cmdutil.ErrorBody{Kind: kind, Message: cmdutil.ErrorMessage(nil, err)}
			if first == nil {
				first = &cmdutil.ExitError{Code: code, Kind: kind}
			}
		}
		if bar != nil && ios.StdoutTTY {
			bar.hide() // one terminal: the JSON line must not follow the bar's text
		}
		if err := ios.PrintJSON(line); err != nil {
			return err
		}
		if bar != nil {
			bar.add(err != nil)
		}
		if errors.Is(err, upicollect.ErrUnauthorized) {
			break // every other check would be refused too
		}
	}
	if bar != nil {
		bar.finish()
	}
	switch {
	case opts.Ctx.Err() != nil:
		return cmdutil.Interrupted(opts.Ctx, errors.New("not every order was checked"))
	case *readErr != nil:
		return fmt.Errorf("--from-file: %w", *readErr)
	}
	return first
}

// openIDs opens the list of order ids; total is its number of lines when
// it is a file a progress bar will be drawn for (0 otherwise: unknown).
func openIDs(ios *iostreams.IOStreams, path string) (io.ReadCloser, int, error) {
	if path == "-" {
		return io.NopCloser(ios.In), 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	total := 0
	if ios.StderrTTY {
		if total, err = countIDs(f); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return nil, 0, err
		}
	}
	return f, total, nil
}

// countIDs counts the order ids in r as orderIDs reads them.
func countIDs(r io.Reader) (int, error) {
	n := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n, sc.Err()
}

// orderIDs yields the order ids of r, one a line, blank lines skipped. A
// goroutine reads, so that the sequence ends when ctx does even while a
// terminal waits for a line; the error that ended the reading, if any, is
// in *err once the sequence ended.
func orderIDs(ctx context.Context, r io.Reader) (iter.Seq[string], *error) {
	var readErr error
	seq := func(yield func(string) bool) {
		lines := make(chan string)
		done := make(chan error, 1)
		go func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				select {
				case lines <- sc.Text():
				case <-ctx.Done():
					done <- nil
					return
				}
			}
			done <- sc.Err()
		}()
		for {
			select {
			case line := <-lines:
				if id := strings.TrimSpace(line); id != "" && !yield(id) {
					return
				}
			case readErr = <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}
	return seq, &readErr
}
