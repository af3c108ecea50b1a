package upicollect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// IntentParams are the inputs of CreatePaymentIntent.
type IntentParams struct {
	Amount      Money  // whole rupees, 1..100000
	OrderID     string // optional, unique; when empty the client sets one (NewOrderID) before the first attempt
	RedirectURL string // where the customer goes after paying
	Note        string
	Customer    Customer
}

// Intent is a payment the customer completes in a UPI app, through a link or
// a QR code.
type Intent struct {
	OrderID string
	Amount  Money
	Link    string // generic upi:// intent link ("intent")
	// AppLinks holds the per-app links keyed by the service's own field name
	// ("phonepe", "paytm", "gpay", "cred", or "app_a"... in the document);
	// CreatePaymentIntent leaves out a link that cannot be read or names no
	// payee. paypage.Links lists them in order, with the apps' names.
	AppLinks map[string]string
	// DynamicQR is the QR code as sent, opaque: the web address of an
	// image, a data:image/png;base64 URL, raw base64 of a PNG, or the
	// upi: link to draw. paypage.QR makes an image of any of them.
	DynamicQR    string
	ExpiresAt    time.Time // zero when absent or unparseable
	MerchantName string    // "merchantName", when the service sends it
	Message      string
	Response     *Response
}

// CreatePaymentIntent starts a payment that the customer completes in a UPI
// app (intent links or the dynamic QR), then returns to p.RedirectURL.
//
// API: POST /v1/payments/createPaymentIntent
//
// The parameters are validated first; a problem returns a *ValidationError
// and sends nothing. Without p.OrderID the client sets one from NewOrderID
// before the first attempt (p itself is not changed), so every create
// carries an order id: the result's OrderID and every *APIError's OrderID
// name the order to check. Retries: on connection errors, timeouts, 429,
// 500, 502, 503 and 504, and a 409 on any attempt after the first is
// reported as ErrOutcomeUnknown, never ErrDuplicateOrderID. An answer that
// is not the service's envelope, one for another amount or order, and one
// whose links fail any check of Intent.Verify is ErrUnexpectedResponse and
// ErrOutcomeUnknown: no link this returns pays another amount, order or
// payee. An app's own link that cannot be read, or names no payee, pays
// nobody: it is dropped from AppLinks, not a reason to refuse the intent,
// and reported to the logger (a warning) and to the Observer
// (CallEnd.DroppedLinks); one that names another payee, amount or order
// still refuses the whole answer. The context bounds the whole call; cancelling it after the request
// went out gives no guarantee either way (ErrOutcomeUnknown): check the
// order's status before creating it again.
//
// Faults, with the default RetryPolicy:
//   - 400: 1 attempt, then ErrInvalidRequest
//   - 401 and 403: 1 attempt, then ErrUnauthorized
//   - 409: 1 attempt, then ErrDuplicateOrderID
//   - 429: 3 attempts, then ErrRateLimited and ErrOutcomeUnknown
//   - 500, 502, 503 and 504: 3 attempts, then ErrServer and ErrOutcomeUnknown
//   - 501, 505 and the other 5xx: 1 attempt, then ErrServer
//   - a connection reset: 3 attempts, then ErrOutcomeUnknown
func (c *Client) CreatePaymentIntent(ctx context.Context, p *IntentParams) (*Intent, error) {
	c.mustInit()
	const op = vocab.OpCreatePaymentIntent
	if p == nil {
		return nil, &ValidationError{Op: op, Fields: []FieldError{{"params", "is nil"}}}
	}
	cl, orderID, err := c.redirectCreate(op, p)
	if err != nil {
		return nil, err
	}
	return invoke(ctx, c, cl, func(env *wire.Envelope, resp *Response) (*Intent, error) {
		in, dropped, err := readIntent(p, orderID, env, resp)
		cl.dropped = dropped // for the observer: the log warns of each
		return in, err
	})
}

// redirectCreate validates the fields of a create that sends the payer back
// to a redirect URL (an intent, or an order request, whose fields are the
// intent's) and describes the call for op, with the order id it carries:
// p's, or a new one when p has none.
func (c *Client) redirectCreate(op string, p *IntentParams) (*call, string, error) {
	var chk checker
	rupees := chk.amount(p.Amount)
	chk.orderID(p.OrderID, false)
	chk.redirectURL(p.RedirectURL)
	chk.note(p.Note)
	mobile := chk.customer(p.Customer)
	if err := chk.err(op); err != nil {
		return nil, "", err
	}
	orderID := orderIDOrNew(p.OrderID)
	return c.createCall(op, orderID, &wire.IntentRequest{
		MID:            c.creds.MID,
		Amount:         rupees,
		OrderID:        orderID,
		RedirectURL:    p.RedirectURL,
		Note:           p.Note,
		CustomerName:   p.Customer.Name,
		CustomerEmail:  p.Customer.Email,
		CustomerMobile: mobile,
	}), orderID, nil
}

// readIntent decodes createPaymentIntent's data; orderID is the one sent.
// It returns the app links it dropped too.
func readIntent(p *IntentParams, orderID string, env *wire.Envelope, resp *Response) (*Intent, []DroppedLink, error) {
	data, err := needData(env)
	if err != nil {
		return nil, nil, err
	}
	d, err := wire.DecodeIntentData(data)
	if err != nil {
		return nil, nil, err
	}
	answered, err := answerOrder(d.OrderID, orderID)
	if err != nil {
		return nil, nil, err
	}
	in := &Intent{
		OrderID:      answered,
		Amount:       p.Amount,
		Link:         d.Link,
		AppLinks:     d.AppLinks,
		DynamicQR:    d.DynamicQR,
		ExpiresAt:    wire.ParseExpiry(d.Expiry),
		MerchantName: d.MerchantName,
		Message:      env.Msg,
		Response:     resp,
	}
	if d.Amount != nil {
		paise, err := wire.ParseAmount(d.Amount)
		if err != nil {
			return nil, nil, err
		}
		in.Amount = Money(paise)
	}
	if in.Amount != p.Amount {
		return nil, nil, fmt.Errorf("the answer's amount is %s, not the %s asked", in.Amount, p.Amount)
	}
	// An app's link that no app could pay with is dropped, not a reason to
	// refuse the links that work.
	dropped := dropUnusable(in.AppLinks)
	// The checks Verify runs, with the order id sent: a link that pays
	// another amount, order or payee must never reach a payer.
	sent := *p
	sent.OrderID = orderID
	if err := in.Verify(&sent); err != nil {
		if ve, ok := err.(*VerifyError); ok {
			return nil, nil, unsafeLinksError{ve.mismatches()}
		}
		return nil, nil, err
	}
	return in, dropped, nil
}

// DroppedLink is an app's link an intent answer carried that the client
// dropped from Intent.AppLinks.
type DroppedLink struct {
	// App is the link's key in the answer ("cred", "app_a", ...).
	App string
	// Reason says why, in the SDK's words: the link cannot be read as a
	// UPI or app link, or names no payee.
	Reason string
}

// dropUnusable removes from apps, and returns in key order, the links no
// app could pay with (upi.Unusable): a link that cannot be read, or names
// no payee, pays nobody, so the links beside it stay usable. A link that
// names a payee stays, for Verify to judge.
func dropUnusable(apps map[string]string) []DroppedLink {
	var dropped []DroppedLink
	for k, v := range apps {
		if why := upi.Unusable(v); why != "" {
			dropped = append(dropped, DroppedLink{App: k, Reason: why})
			delete(apps, k)
		}
	}
	slices.SortFunc(dropped, func(a, b DroppedLink) int { return strings.Compare(a.App, b.App) })
	return dropped
}

// answerOrder is the order a create's answer names: got, or sent when the
// answer names none (a payment request's or order request's answer may
// carry no orderId). An answer naming another order than the one sent is
// refused: its links, page or order id belong to some other payment.
func answerOrder(got, sent string) (string, error) {
	if got == "" || got == sent {
		return sent, nil
	}
	return "", fmt.Errorf("the answer names order %s, not %s", upi.Quote(got), upi.Quote(sent))
}

// VerifyError lists every way an intent's links disagree with the
// parameters it was created with.
type VerifyError struct {
	Mismatches []LinkMismatch
}

// LinkMismatch is one link parameter that is unsafe or not what the
// merchant asked for. Link is "intent" for the generic link, the app's key
// in AppLinks, or "dynamicQR"; Param is the link parameter ("am", "mam",
// "cu", "tr", "pa", a repeated name) or "link" when the link could not be
// read at all or has a scheme it must not have.
type LinkMismatch struct {
	Link, Param, Want, Got string
}

// Error lists the mismatches.
func (e *VerifyError) Error() string { return "upicollect: " + e.mismatches() }

// mismatches is Error without the package's prefix, for an error that
// carries it inside its own.
func (e *VerifyError) mismatches() string {
	var b strings.Builder
	b.WriteString("intent links do not match the request: ")
	for i, m := range e.Mismatches {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.Link + " " + m.Param + ": want " + quoteOrNone(m.Want) + ", got " + quoteOrNone(m.Got))
	}
	return b.String()
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return upi.Quote(s)
}

// Verify checks, before a link or QR code is shown to a payer, that the
// intent's links are safe and are the payment p asked for: the generic link,
// every per-app link and a dynamic QR that is a upi: link each carry p's
// amount (am; no mam above it; cu INR when set) and, when p.OrderID is set,
// that order id as the transaction reference (tr); all name one payee (pa);
// no parameter name repeats, also as a case or percent variant; the generic
// link and the QR use upi:, an app link upi: or the app's own scheme (never
// a web, script or intent: link). A link that pays another amount, order
// or payee must never reach a payer, whatever a proxy, a bug or an attacker
// did to the answer. CreatePaymentIntent runs these checks on its own
// answer; Verify is for links obtained elsewhere. It returns a *VerifyError
// naming each mismatch, and an error for a nil intent or nil params. It does
// no I/O.
func (i *Intent) Verify(p *IntentParams) error {
	if i == nil || p == nil {
		return errors.New("upicollect: Verify: nil intent or params")
	}
	ms := upi.CheckIntent(i.Link, i.AppLinks, i.DynamicQR, upi.Want{Paise: p.Amount.Paise(), OrderID: p.OrderID})
	if len(ms) == 0 {
		return nil
	}
	e := &VerifyError{Mismatches: make([]LinkMismatch, len(ms))}
	for k, m := range ms {
		e.Mismatches[k] = LinkMismatch(m)
	}
	return e
}
