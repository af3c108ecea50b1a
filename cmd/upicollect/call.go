package main

import (
	upicollect "github.com/upicollect/upicollect-go"
)

// runCall makes the command's client and runs one call with it: under
// --dry-run it prints the request the call built instead of a result, else
// it prints the result with show.
func runCall[T any](a *app, conn *connFlags, call func(*upicollect.Client) (T, error), show func(T) error) error {
	c, dr, err := a.client(conn)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	res, err := call(c)
	if dr != nil {
		return a.reportDryRun(dr, err)
	}
	if err != nil {
		return err
	}
	return show(res)
}

// payPageJSON is the --json form of a create that sends the payer to a
// page: a payment request or a hosted checkout.
type payPageJSON struct {
	OrderID    string `json:"order_id"`
	PaymentURL string `json:"payment_url"`
	Message    string `json:"message"`
}

// printPayPage prints the order to confirm and the page to send the payer
// to.
func (a *app) printPayPage(p payPageJSON) error {
	if a.json {
		return a.printJSON(p)
	}
	return a.printFields(field{"Order", p.OrderID}, field{"Pay at", p.PaymentURL}, field{"Message", p.Message})
}
