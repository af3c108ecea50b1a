package reconcile

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
)

type trackJSON struct {
	OrderID     string `json:"order_id"`
	Amount      string `json:"amount"`
	AmountPaise int64  `json:"amount_paise"`
	Created     string `json:"created"`
	FirstCheck  string `json:"first_check"`
}

// TrackOptions are what `upicollect reconcile track` runs with.
type TrackOptions struct {
	ledgerOptions
	OrderID   string
	Amount    upicollect.Money
	amountSet bool // --amount was given
	Created   string
}

// NewCmdTrack is `upicollect reconcile track`; runF, when not nil, runs
// instead of trackRun (tests).
func NewCmdTrack(f *cmdutil.Factory, runF func(*TrackOptions) error) *cobra.Command {
	opts := &TrackOptions{ledgerOptions: newLedgerOptions(f)}
	cmd := &cobra.Command{
		Use:   "track ORDER_ID --amount RUPEES [--created TIME]",
		Short: "Track an order in the ledger (for scripts)",
		Long: `Track an order: run checks it from --created (default now) on the schedule
until its final state, and delivers each event. --amount is what you expect
to be paid, in rupees ("499", "499.50"), read exactly. --created is RFC 3339
("2026-11-26T10:00:00+05:30"). Tracking an order again with the same amount
changes nothing; with another amount it is refused (exit 3).`,
		Example: `  upicollect reconcile track ORD-1042 --amount 499 --dsn sqlite:shop.db --create`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.OrderID = args[0]
			opts.amountSet = cmd.Flags().Changed("amount")
			if runF != nil {
				return runF(opts)
			}
			return trackRun(opts)
		},
	}
	addLedgerFlags(cmd, &opts.ledgerOptions, true)
	fl := cmd.Flags()
	fl.Var(cmdutil.MoneyFlag{M: &opts.Amount}, "amount", "the amount you expect, in rupees (required)")
	fl.StringVar(&opts.Created, "created", "", "when the order was created, RFC 3339 `TIME` (default now)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON, cmdutil.JSONUsage)
	return cmd
}

func trackRun(opts *TrackOptions) error {
	o := reconcile.Order{ID: opts.OrderID, Amount: opts.Amount, Created: opts.IO.Now()}
	var problems []string
	var ve *upicollect.ValidationError
	if err := upicollect.ValidateOrderID("track", o.ID); errors.As(err, &ve) {
		for _, f := range ve.Fields {
			problems = append(problems, "ORDER_ID: "+f.Problem)
		}
	} else if err != nil {
		problems = append(problems, "ORDER_ID: "+err.Error())
	}
	if !opts.amountSet || opts.Amount <= 0 {
		problems = append(problems, "--amount: must be a positive amount in rupees")
	}
	if opts.Created != "" {
		t, err := time.Parse(time.RFC3339, opts.Created)
		if err != nil {
			problems = append(problems, "--created: want RFC 3339, like 2026-11-26T10:00:00+05:30")
		}
		o.Created = t
	}
	if len(problems) > 0 {
		return cmdutil.UsageError(errors.New(strings.Join(problems, "; ")))
	}
	st, closeDB, err := opts.open(false)
	if err != nil {
		return err
	}
	defer closeDB()
	due := o.Created.Add(reconcile.DefaultSchedule()[0].Every)
	if err := st.Track(opts.Ctx, o, due); err != nil {
		return ledgerError(fmt.Errorf("track %s: %w", o.ID, err))
	}
	v := trackJSON{OrderID: o.ID, Amount: o.Amount.String(), AmountPaise: o.Amount.Paise(),
		Created: o.Created.Format(time.RFC3339), FirstCheck: due.Format(time.RFC3339)}
	if opts.JSON {
		return opts.IO.PrintJSON(v)
	}
	return opts.IO.PrintFields(iostreams.Field{Name: "tracked", Value: o.ID}, iostreams.Field{Name: "amount", Value: cmdutil.Rupees(o.Amount)},
		iostreams.Field{Name: "created", Value: cmdutil.IndiaTime(o.Created)}, iostreams.Field{Name: "first check", Value: cmdutil.IndiaTime(due)})
}
