package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// controlFlags are the flags of the commands that drive a running sandbox
// over its control endpoints.
type controlFlags struct {
	baseURL string
}

// addControlFlags adds --base-url and --json to a sandbox control command.
func (a *app) addControlFlags(cmd *cobra.Command, cf *controlFlags) {
	f := cmd.Flags()
	f.StringVar(&cf.baseURL, "base-url", "", "the sandbox's base `URL` (default $"+envBaseURL+", else http://"+defaultSandboxAddr+")")
	f.BoolVar(&a.json, "json", false, "print one JSON document (errors too) on stdout")
}

// sandboxBase is the base URL of the sandbox a control command talks to.
func (a *app) sandboxBase(cf *controlFlags) (string, error) {
	base := a.pick(cf.baseURL, envBaseURL)
	if base == "" {
		base = "http://" + defaultSandboxAddr
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usageError(fmt.Errorf("base URL (--base-url or %s) %q is not an absolute http or https URL", envBaseURL, base))
	}
	return strings.TrimSuffix(base, "/"), nil
}

// controlTimeout bounds one call to a sandbox's control endpoint: it
// answers at once, so a sandbox that does not is not there.
const controlTimeout = 30 * time.Second

// controlClient talks to a sandbox on loopback: never through a proxy,
// never following a redirect.
var controlClient = &http.Client{
	Transport:     &http.Transport{Proxy: nil, DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// maxControlAnswer bounds what a control call reads of an answer.
const maxControlAnswer = 1 << 20

// callSandbox sends a control request to base+path and returns the body of
// a 2xx answer. It sends neither Origin nor Sec-Fetch-Site, as any client
// that is not a browser, so the sandbox's cross-site guard lets it pass.
// A refusal is an error carrying the sandbox's own words and exit code 3.
func (a *app) callSandbox(base, path, contentType string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(a.ctx, controlTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, usageError(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "upicollect-cli/"+cliVersion())
	resp, err := controlClient.Do(req)
	if err != nil {
		if a.ctx.Err() != nil {
			return nil, interrupted(a.ctx, err)
		}
		return nil, &exitError{code: exitFailure, kind: kindNetwork,
			err: fmt.Errorf("no sandbox answered at %s (is `upicollect sandbox` running?): %w", base, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxControlAnswer))
	if err != nil {
		return nil, &exitError{code: exitFailure, kind: kindNetwork, err: fmt.Errorf("reading the sandbox's answer: %w", err)}
	}
	if resp.StatusCode/100 == 2 {
		return b, nil
	}
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	kind := kindRefused
	if resp.StatusCode == http.StatusNotFound {
		kind = "not_found"
	}
	return nil, &exitError{code: exitRefused, kind: kind,
		err: fmt.Errorf("the sandbox refused (HTTP %d): %s", resp.StatusCode, strings.TrimPrefix(msg, "sandbox: "))}
}

const advanceLong = `Move the sandbox's clock forward, so that payments scheduled with
'upicollect sandbox pay --after' (or Settle) come due, intents expire and a
sweeper sees late outcomes without waiting for them. The sandbox must have
been started by 'upicollect sandbox', whose clock is real time plus what was
advanced (a sandbox in a test moves only with sandbox.WithMovableClock). The
clock only moves forward. Prints the new sandbox time.`

const advanceExample = `  upicollect sandbox advance 2h
  upicollect sandbox advance 26h30m --json
  upicollect sandbox advance --to 2026-03-01T10:00:00+05:30`

func (a *app) sandboxAdvanceCmd() *cobra.Command {
	var cf controlFlags
	var to string
	cmd := &cobra.Command{
		Use:     "advance DURATION | --to TIME",
		Short:   "Move a running sandbox's clock forward",
		Long:    advanceLong,
		Example: advanceExample,
		Args:    cobra.MaximumNArgs(1),
		RunE: a.runE(func(_ *cobra.Command, args []string) error {
			body, err := advanceBody(args, to)
			if err != nil {
				return err
			}
			return a.advance(&cf, body)
		}),
	}
	a.addControlFlags(cmd, &cf)
	cmd.Flags().StringVar(&to, "to", "", "set the clock to `TIME` (RFC 3339) instead of advancing it")
	return cmd
}

// advanceBody is the JSON body of POST /sandbox/clock, checked before any
// I/O.
func advanceBody(args []string, to string) ([]byte, error) {
	switch {
	case len(args) == 1 && to != "":
		return nil, usageError(errors.New("give a DURATION or --to TIME, not both"))
	case to != "":
		if _, err := time.Parse(time.RFC3339Nano, to); err != nil {
			return nil, usageError(fmt.Errorf("--to %q is not an RFC 3339 time such as 2026-03-01T10:00:00Z", to))
		}
		return json.Marshal(map[string]string{"set": to})
	case len(args) == 0:
		return nil, usageError(errors.New("give a DURATION (such as 2h) or --to TIME"))
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return nil, usageError(fmt.Errorf("DURATION %q is not a duration such as 90s, 2h or 26h30m", args[0]))
	}
	if d < 0 {
		return nil, usageError(fmt.Errorf("DURATION %s is negative: the sandbox's clock only moves forward", args[0]))
	}
	return json.Marshal(map[string]string{"advance": args[0]})
}

// clockJSON is what advance prints with --json: the sandbox's answer.
type clockJSON struct {
	Now string `json:"now"`
}

func (a *app) advance(cf *controlFlags, body []byte) error {
	base, err := a.sandboxBase(cf)
	if err != nil {
		return err
	}
	b, err := a.callSandbox(base, "/sandbox/clock", "application/json", body)
	if err != nil {
		return err
	}
	var c clockJSON
	now, perr := time.Time{}, json.Unmarshal(b, &c)
	if perr == nil {
		now, perr = time.Parse(time.RFC3339Nano, c.Now)
	}
	if perr != nil {
		return fmt.Errorf("the sandbox's answer is not a time: %q", b)
	}
	if a.json {
		return a.printJSON(c)
	}
	return a.printFields(field{"sandbox time", c.Now}, field{"India time", indiaTime(now)})
}

// indiaTime writes t as the sandbox's pages do: "2025-01-15 15:35:00 IST".
func indiaTime(t time.Time) string {
	return t.In(time.FixedZone("IST", 5*3600+30*60)).Format(time.DateTime) + " IST"
}

const payLong = `Settle an order in a running sandbox as its payer would: SUCCESS (the
default), FAIL or REJECT, through POST /sandbox/orders/ORDER_ID/pay. With
--after the bank's answer comes that much sandbox time later: the order
stays as it is until then ('upicollect sandbox advance' gets there at once).
A FAIL may later become SUCCESS, as a bank's late authorisation does:

  upicollect sandbox pay ORDER_ID --result FAIL
  upicollect sandbox pay ORDER_ID --after 3h
  upicollect sandbox advance 3h

Prints the order as the sandbox then holds it.`

const payExample = `  upicollect sandbox pay utz_65f1c2ab3d4e5
  upicollect sandbox pay utz_65f1c2ab3d4e5 --result FAIL
  upicollect sandbox pay utz_65f1c2ab3d4e5 --after 3h --amount 498.50 --json`

// payFlags are the flags of `upicollect sandbox pay`.
type payFlags struct {
	controlFlags
	result, utr string
	after       time.Duration
	amount      upicollect.Money
}

func (a *app) sandboxPayCmd() *cobra.Command {
	var pf payFlags
	cmd := &cobra.Command{
		Use:     "pay ORDER_ID",
		Short:   "Settle an order in a running sandbox, now or later",
		Long:    payLong,
		Example: payExample,
		Args:    cobra.ExactArgs(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			form, err := pf.form(cmd)
			if err != nil {
				return err
			}
			return a.pay(&pf.controlFlags, args[0], form)
		}),
	}
	a.addControlFlags(cmd, &pf.controlFlags)
	f := cmd.Flags()
	f.StringVar(&pf.result, "result", sandbox.StatusSuccess, "the payer's choice: `RESULT` SUCCESS, FAIL or REJECT")
	f.DurationVar(&pf.after, "after", 0, "the bank answers this much sandbox time later (default: at once)")
	f.StringVar(&pf.utr, "utr", "", "the bank reference `UTR` to report (default: a new one)")
	f.Var(moneyFlag{&pf.amount}, "amount", "the amount paid in rupees, when it differs from the order's")
	return cmd
}

// form is the pay endpoint's form, checked before any I/O.
func (pf *payFlags) form(cmd *cobra.Command) (url.Values, error) {
	result := strings.ToUpper(pf.result)
	switch result {
	case sandbox.StatusSuccess, sandbox.StatusFail, sandbox.StatusReject:
	default:
		return nil, usageError(fmt.Errorf("--result %q: want SUCCESS, FAIL or REJECT", pf.result))
	}
	form := url.Values{"result": {result}}
	if pf.utr != "" {
		form.Set("utr", pf.utr)
	}
	if cmd.Flags().Changed("after") {
		if pf.after < 0 {
			return nil, usageError(fmt.Errorf("--after %s is negative", pf.after))
		}
		form.Set("after", pf.after.String())
	}
	if cmd.Flags().Changed("amount") {
		if pf.amount <= 0 {
			return nil, usageError(errors.New("--amount must be more than zero"))
		}
		form.Set("amount", pf.amount.String())
	}
	return form, nil
}

func (a *app) pay(cf *controlFlags, orderID string, form url.Values) error {
	base, err := a.sandboxBase(cf)
	if err != nil {
		return err
	}
	b, err := a.callSandbox(base, "/sandbox/orders/"+url.PathEscape(orderID)+"/pay",
		"application/x-www-form-urlencoded", []byte(form.Encode()))
	if err != nil {
		return err
	}
	var o sandbox.Order
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("the sandbox's answer is not an order: %w", err)
	}
	if a.json {
		return a.printJSON(json.RawMessage(b))
	}
	fields := []field{{"order_id", o.OrderID}, {"status", o.Status}, {"utr", o.UTR}}
	if o.PaidPaise != 0 && o.PaidPaise != o.AmountPaise {
		fields = append(fields, field{"paid", rupees(upicollect.Money(o.PaidPaise))})
	}
	for _, c := range o.Scheduled {
		fields = append(fields, field{"scheduled", c.Result + " at " + indiaTime(c.At)})
	}
	return a.printFields(fields...)
}
