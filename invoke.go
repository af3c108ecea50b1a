package upicollect

import (
	"context"
	"errors"
	"io"
	"net/url"

	"github.com/upicollect/upicollect-go/internal/redact"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// safety says what repeating a request may do, which decides what is retried.
type safety int

const (
	// readOnly calls (the status check) change nothing: repeat on any
	// transient failure.
	readOnly safety = iota
	// keyedCreate calls carry an order_id: the service refuses a second
	// order with it, so a repeat after an ambiguous failure is safe, and a 409
	// then means "an earlier attempt may have created it".
	keyedCreate
	// unkeyedCreate calls could create a second order if repeated: repeat
	// only when the request provably never left.
	unkeyedCreate
)

// call is one operation call as the transport sees it: built once, sent by
// every attempt.
type call struct {
	op      string
	path    string   // below the base URL, for the log
	url     *url.URL // the endpoint, joined to the base URL once; shared
	body    string   // the form, encoded once
	getBody func() (io.ReadCloser, error)
	safety  safety
	orderID string
	filter  *redact.Filter // removes the credentials from a failure's text
}

// answer is an envelope that wire.Check accepted, and the response it came
// in.
type answer struct {
	env  *wire.Envelope
	resp *Response
}

// Header values that are the same for every request.
var (
	contentTypeForm = []string{"application/x-www-form-urlencoded"}
	acceptJSON      = []string{"application/json"}
)

// newCall describes op for the transport. The form is encoded here, once
// per call, not once per attempt.
func (c *Client) newCall(op, path, orderID string, s safety, form string) *call {
	return &call{
		op: op, path: path, url: c.endpoint(path), body: form, safety: s, orderID: orderID,
		// For a transport that retries a request on a connection that
		// closed under it.
		getBody: func() (io.ReadCloser, error) { return newBody(form), nil },
		filter:  c.filter,
	}
}

// createCall describes a create: keyed when it carries an order id, which
// makes repeating it safe.
func (c *Client) createCall(op, orderID string, req interface{ Encode() string }) *call {
	s := unkeyedCreate
	if orderID != "" {
		s = keyedCreate
	}
	return c.newCall(op, vocab.PathPrefix+op, orderID, s, req.Encode())
}

// invoke carries one validated call from its request to its typed result:
// send (retries included), then the operation's decode of the accepted
// answer. A decode failure is ErrUnexpectedResponse, and for a create also
// ErrOutcomeUnknown: the service said yes, but what it made cannot be read.
func invoke[T any](ctx context.Context, c *Client, cl *call, decode func(answer) (T, error)) (T, error) {
	ans, err := c.send(ctx, cl)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := decode(ans)
	if err != nil {
		e := cl.unreadableData(ans, err)
		c.logGiveUp(ctx, cl, ans.resp.Attempts, e, "unreadable data in a success answer")
		var zero T
		return zero, e
	}
	return v, nil
}

// unreadableData is the error for an accepted answer whose data cannot be
// read.
func (cl *call) unreadableData(a answer, err error) *APIError {
	k := kindUnexpected
	if cl.safety != readOnly {
		k |= kindOutcomeUnknown
	}
	return &APIError{
		Op: cl.op, HTTPStatus: a.resp.HTTPStatus, StatusCode: a.env.StatusCode, Message: message(cl.filter, a.env.Msg),
		OrderID: cl.orderID, Response: a.resp, kinds: k,
		detail: cl.filter.Text(err.Error()) + ": " + bodySnippet(cl.filter, a.resp.Body),
	}
}

var errNoData = errors.New("no data in a success answer")

// needData returns the answer's data, or an error when it has none.
func needData(a answer) ([]byte, error) {
	if a.env.Data == nil {
		return nil, errNoData
	}
	return a.env.Data, nil
}
