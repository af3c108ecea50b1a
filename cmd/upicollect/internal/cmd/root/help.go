package root

import "github.com/spf13/cobra"

const exitCodesHelp = `Exit codes of upicollect:

  0    success (status: the check worked and the payment did not fail)
  1    unexpected failure (network error, file not writable, ...)
  2    usage or validation: bad flags or arguments, missing settings, or a
       parameter the service would refuse (nothing was sent)
  3    the service refused the request (duplicate order ID, invalid request,
       rate limit, server error, an answer that could not be read), or wait
       gave up on an order the service does not know (--unknown-timeout), or
       the ledger refused (reconcile show of an order it does not track,
       reconcile track of a tracked order with another amount)
  4    unauthorized: credentials missing or rejected
  5    outcome unknown: a create may or may not have taken effect (check the
       order's status before creating it again), or wait timed out
  6    the payment ended FAIL or REJECT (status and wait), or SUCCESS for
       another amount than wait --amount
  130  interrupted (Ctrl-C; 143 when stopped by SIGTERM)

With --json, every failure is also printed on stdout as
  {"error":{"kind":"...","message":"..."}}
where kind is one of usage, validation, unauthorized, outcome_unknown,
timeout, interrupted, amount_mismatch, duplicate_order_id, invalid_request,
not_found, rate_limited, server_error, unexpected_response, refused,
transport, failure, not_tracked, tracked_differently.`

const environmentHelp = `Environment variables read by intent, request, order, link, status and wait
(a flag, when given, wins over its variable):

  UPICOLLECT_BASE_URL    the service's base URL (or --base-url)
  UPICOLLECT_MID         merchant ID (or --mid)
  UPICOLLECT_PUBLIC_KEY  public key (or --public-key)
  UPICOLLECT_SECRET_KEY  secret key (or --secret-file FILE)
  NO_COLOR               when set, wait's spinner draws without colour

The secret key is never taken from a flag, which would show in ps and in
shell history, and never printed: not in output, errors or --dry-run.
--secret-file reads the first line of a small file and warns when others
may read it.

upicollect reconcile reads:

  UPICOLLECT_RECONCILE_DSN   the ledger (or --dsn): postgres://… or sqlite:PATH
  UPICOLLECT_WEBHOOK_SECRET  the secret that signs run --deliver https://…
                             (or --webhook-secret-file FILE)

Neither is ever printed: a DSN is shown with its password hidden.

'upicollect sandbox' prints these four values for a local sandbox as one
JSON line; it takes the MID and keys from the same flags and variables.`

// helpTopics are the pages of `upicollect help TOPIC` that are not
// commands.
func helpTopics() []*cobra.Command {
	return []*cobra.Command{
		{Use: "exit-codes", Short: "Exit codes and JSON error kinds", Long: exitCodesHelp},
		{Use: "environment", Short: "Environment variables and where the secret key comes from", Long: environmentHelp},
	}
}
