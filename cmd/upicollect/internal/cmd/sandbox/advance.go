package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

const advanceLong = `Move the sandbox's clock forward, so that payments scheduled with
'upicollect sandbox pay --after' (or Settle) come due, intents expire and a
sweeper sees late outcomes without waiting for them. The sandbox must have
been started by 'upicollect sandbox', whose clock is real time plus what was
advanced (a sandbox in a test moves only with sandbox.WithMovableClock). The
clock only moves forward, up to the end of the year 9998: a move back or
past that is refused (exit 3) and the clock stays where it was. Prints the
new sandbox time.`

const advanceExample = `  upicollect sandbox advance 2h
  upicollect sandbox advance 26h30m --json
  upicollect sandbox advance --to 2026-03-01T10:00:00+05:30`

// AdvanceOptions are what `upicollect sandbox advance` runs with.
type AdvanceOptions struct {
	control
	Duration string // the DURATION argument, "" when none
	To       string
	Args     int // the number of arguments given
}

// NewCmdAdvance is `upicollect sandbox advance`; runF, when not nil, runs
// instead of advanceRun (tests).
func NewCmdAdvance(f *cmdutil.Factory, runF func(*AdvanceOptions) error) *cobra.Command {
	opts := &AdvanceOptions{control: control{IO: f.IOStreams, Config: f.Config}}
	cmd := &cobra.Command{
		Use:     "advance DURATION | --to TIME",
		Short:   "Move a running sandbox's clock forward",
		Long:    advanceLong,
		Example: advanceExample,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Args = len(args)
			if len(args) == 1 {
				opts.Duration = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return advanceRun(opts)
		},
	}
	addControlFlags(cmd, &opts.control)
	cmd.Flags().StringVar(&opts.To, "to", "", "set the clock to `TIME` (RFC 3339) instead of advancing it")
	return cmd
}

func advanceRun(opts *AdvanceOptions) error {
	var args []string
	if opts.Args == 1 {
		args = []string{opts.Duration}
	}
	body, err := advanceBody(args, opts.To)
	if err != nil {
		return err
	}
	return advance(&opts.control, body)
}

// advanceBody is the JSON body of POST /sandbox/clock, checked before any
// I/O.
func advanceBody(args []string, to string) ([]byte, error) {
	switch {
	case len(args) == 1 && to != "":
		return nil, cmdutil.UsageError(errors.New("give a DURATION or --to TIME, not both"))
	case to != "":
		if _, err := time.Parse(time.RFC3339Nano, to); err != nil {
			return nil, cmdutil.UsageError(fmt.Errorf("--to %q is not an RFC 3339 time such as 2026-03-01T10:00:00Z", to))
		}
		return json.Marshal(map[string]string{"set": to})
	case len(args) == 0:
		return nil, cmdutil.UsageError(errors.New("give a DURATION (such as 2h) or --to TIME"))
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return nil, cmdutil.UsageError(fmt.Errorf("DURATION %q is not a duration such as 90s, 2h or 26h30m", args[0]))
	}
	if d < 0 {
		return nil, cmdutil.UsageError(fmt.Errorf("DURATION %s is negative: the sandbox's clock only moves forward", args[0]))
	}
	return json.Marshal(map[string]string{"advance": args[0]})
}

// ClockJSON is what advance prints with --json: the sandbox's answer.
type ClockJSON struct {
	Now string `json:"now"`
}

func advance(cf *control, body []byte) error {
	base, err := cf.base()
	if err != nil {
		return err
	}
	b, err := cf.call(base, "/sandbox/clock", "application/json", body)
	if err != nil {
		return err
	}
	var c ClockJSON
	now, perr := time.Time{}, json.Unmarshal(b, &c)
	if perr == nil {
		now, perr = time.Parse(time.RFC3339Nano, c.Now)
	}
	if perr != nil {
		return fmt.Errorf("the sandbox's answer is not a time: %q", b)
	}
	if cf.JSON {
		return cf.IO.PrintJSON(c)
	}
	return cf.IO.PrintFields(iostreams.Field{Name: "sandbox time", Value: c.Now}, iostreams.Field{Name: "India time", Value: cmdutil.IndiaTime(now)})
}
