package sandbox

import (
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// serveAPI answers POST /v1/payments/{op}: scripted faults first, then the
// operation itself.
func (s *Service) serveAPI(w http.ResponseWriter, r *http.Request, req *request) {
	if s.refuseUnknownOp(w, req) {
		return
	}
	if s.refuseOverQuota(w, req) {
		return
	}
	f := s.takeFault(req.op)
	delay := s.cfg.latency
	if f != nil {
		// Marked now, not when the handler returns: a reset reaches the
		// client before that, and a test may read Requests at once.
		s.log.markFault(req.rec)
		delay += f.Latency
	}
	if !s.sleep(r.Context(), delay) {
		// The client gave up or the server is closing: drop the connection
		// rather than let net/http answer an empty 200.
		panic(http.ErrAbortHandler)
	}
	if f != nil {
		s.applyFault(w, r, req, f)
		return
	}
	s.process(w, r, req)
}

// serveWrongMethod answers /v1/payments/{op} called with a method other
// than POST as the service does: 404 for an unknown operation, else 405
// in its envelope, with Allow.
func (s *Service) serveWrongMethod(w http.ResponseWriter, _ *http.Request, req *request) {
	if s.refuseUnknownOp(w, req) {
		return
	}
	w.Header().Set("Allow", http.MethodPost)
	s.writeAPI(w, http.StatusMethodNotAllowed, failure(s.variantSet(), http.StatusMethodNotAllowed, "Method not allowed; use POST"))
}

// refuseUnknownOp answers 404 to an operation the service does not have
// and reports whether it did.
func (s *Service) refuseUnknownOp(w http.ResponseWriter, req *request) bool {
	if _, ok := opFields[req.op]; ok {
		return false
	}
	s.writeAPI(w, http.StatusNotFound, failure(s.variantSet(), http.StatusNotFound, "Unknown operation "+req.op))
	return true
}

// authorized reports whether r carries the merchant's Basic credentials.
func (s *Service) authorized(r *http.Request) bool {
	pk, sk, ok := r.BasicAuth()
	return ok && equal(pk, s.cfg.publicKey) && equal(sk, s.cfg.secretKey)
}

// process performs the operation and writes the service's answer.
func (s *Service) process(w http.ResponseWriter, r *http.Request, req *request) {
	v := s.variantSet()
	if code, msg := s.refusal(r, req, v); code != 0 {
		if msg == "" {
			s.writeAPI(w, code, missingAuth())
			return
		}
		s.writeAPI(w, code, failure(v, code, msg))
		return
	}
	fields := knownFields(req.op, req.form.vals)
	if req.op == OpCheckPaymentStatus {
		o, ok := s.Order(fields["order_id"])
		var found *Order
		if ok {
			found = &o
		}
		code, body := statusAnswer(v, found)
		s.writeAPI(w, code, body)
		return
	}
	o, err := s.create(req.op, fields)
	if err != nil {
		s.writeAPI(w, http.StatusConflict, failure(v, http.StatusConflict, "Order ID already exists"))
		return
	}
	s.writeAPI(w, http.StatusOK, s.created(v, s.baseURL(r), o))
}

// refusal returns why the request is refused (code 0: it is not), checked
// in order: Authorization, body, mid, fields. An empty msg with a code
// means the missing-Authorization answer.
func (s *Service) refusal(r *http.Request, req *request, v variantSet) (int, string) {
	switch {
	case r.Header.Get("Authorization") == "":
		return http.StatusUnauthorized, ""
	case !req.authed:
		return http.StatusUnauthorized, "Invalid credentials"
	case errors.Is(req.bodyErr, errBodyTooLarge):
		return http.StatusRequestEntityTooLarge, "Request body too large"
	case req.bodyErr != nil:
		return http.StatusBadRequest, "Request body could not be read"
	case errors.Is(req.parseErr, errUnsupportedType):
		return http.StatusUnsupportedMediaType, req.parseErr.Error()
	case req.parseErr != nil:
		return http.StatusBadRequest, req.parseErr.Error()
	}
	// The merchant is checked before the content: a wrong mid is an
	// authentication failure, whatever else the body holds.
	if slices.Contains(req.form.odd, "mid") {
		return http.StatusBadRequest, "mid must be a string or a number"
	}
	if mid := req.form.vals["mid"]; mid == "" {
		return http.StatusBadRequest, "mid is required"
	} else if !equal(mid, s.cfg.mid) {
		return http.StatusUnauthorized, "Invalid mid"
	}
	rl := rules{strict: s.cfg.strict, fractional: v.has(VariantFractionalAmounts)}
	if p := validate(req.op, req.form, rl); p != "" {
		return http.StatusBadRequest, p
	}
	return 0, ""
}

// knownFields keeps the fields op accepts: the others are ignored, as live
// ignores them.
func knownFields(op string, vals map[string]string) map[string]string {
	out := make(map[string]string, len(opFields[op]))
	for _, r := range opFields[op] {
		if v, ok := vals[r.name]; ok {
			out[r.name] = v
		}
	}
	return out
}

// equal compares secrets in constant time.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// create stores a new PENDING order from validated fields.
func (s *Service) create(op string, f map[string]string) (*Order, error) {
	now := s.now()
	paise, _ := checkAmount(f["amount"], true) // validated
	o := &Order{
		MID:         f["mid"],
		AmountPaise: paise,
		Amount:      vocab.FormatRupees(paise),
		Note:        f["note"],
		Customer:    Customer{Name: f["customer_name"], Email: f["customer_email"], Mobile: f["customer_mobile"]},
		VPA:         f["vpa"],
		RedirectURL: f["redirect_url"],
		Status:      StatusPending,
		CreatedAt:   now,
	}
	switch op {
	case OpCreatePaymentIntent:
		o.Kind, o.ExpiresAt = KindIntent, now.Add(s.cfg.intentTTL)
	case OpCreatePaymentRequest:
		o.Kind = KindRequest
	case OpCreateOrderRequest:
		o.Kind = KindOrder // the checkout page has no expiry of its own
	default:
		o.Kind = KindLink
	}
	if id, ok := f["order_id"]; ok {
		o.OrderID = id
		return o, s.store.add(o)
	}
	// A generated id can, in theory, meet a merchant's: draw again.
	for {
		o.OrderID = s.newOrderID()
		if err := s.store.add(o); err == nil {
			return o, nil
		}
	}
}

// created is the success answer of a create.
func (s *Service) created(v variantSet, base string, o *Order) object {
	switch o.Kind {
	case KindIntent:
		return success(v, "Payment intent created successfully", s.intentData(v, base, o))
	case KindOrder:
		data := object{{"orderId", o.OrderID}, {"payment_url", pageURL(base, o.OrderID)}}
		return success(v, "Order request created successfully", data)
	case KindRequest:
		data := object{{"orderId", o.OrderID}, {"payment_url", pageURL(base, o.OrderID)}}
		if v.has(VariantRequestISOExpiry) {
			exp := o.CreatedAt.Add(s.cfg.intentTTL).In(vocab.IndiaTime).Format(time.RFC3339)
			data = append(data, member{"order_id", o.OrderID}, member{"expiry", exp})
		}
		return success(v, "Payment request created successfully", data)
	}
	return success(v, "Payment link created successfully", object{{"payment_link", pageURL(base, o.OrderID)}})
}

// intentData is the createPaymentIntent data object, with merchantName and
// cred as live sends them.
func (s *Service) intentData(v variantSet, base string, o *Order) object {
	q := s.upiQuery(o)
	qr := base + qrPrefix + url.PathEscape(o.OrderID) + ".png"
	if v.has(VariantQRBase64) {
		if png, err := qrPNG("upi://pay?" + q); err == nil {
			qr = "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
		}
	}
	amount := rupeesNumber(o.AmountPaise) // "499", as the document's example
	if v.has(VariantStringAmounts) || o.AmountPaise%100 != 0 {
		amount = vocab.FormatRupees(o.AmountPaise)
	}
	data := object{{"intent", "upi://pay?" + q}}
	for _, app := range upiApps {
		data = append(data, member{app.field, app.link + q})
	}
	return append(data,
		member{"dynamicQR", qr},
		member{"expiry", o.ExpiresAt.In(vocab.IndiaTime).Format(vocab.ExpiryLayout)},
		member{"amount", amount},
		member{"orderId", o.OrderID},
		member{"merchantName", s.cfg.merchantName},
	)
}

// upiApps are the UPI apps live links to by name: the intent answer's
// per-app fields and the hosted checkout's app buttons, which show the
// names vocab.AppName gives them.
var upiApps = []struct {
	field, link string // answer field, link before the query
}{
	{"phonepe", "phonepe://pay?"},
	{"paytm", "paytmmp://pay?"},
	{"gpay", "tez://upi/pay?"},
	{"cred", "credpay://upi/pay?"},
}

// upiQuery is the query of the order's UPI links, in the customary order.
func (s *Service) upiQuery(o *Order) string {
	return "pa=" + upiEscape(s.cfg.merchantVPA) +
		"&pn=" + upiEscape(s.cfg.merchantName) +
		"&am=" + vocab.FormatRupees(o.AmountPaise) +
		"&tr=" + upiEscape(o.OrderID) +
		"&tn=" + upiEscape(o.Note) +
		"&cu=INR"
}

// upiEscape escapes a query value with %20 for spaces (UPI apps do not all
// read '+') and keeps '@', which is legal in a query and keeps VPAs readable.
func upiEscape(s string) string {
	e := strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	return strings.ReplaceAll(e, "%40", "@")
}

// pageURL is the hosted page of an order.
func pageURL(base, id string) string { return base + pagePrefix + url.PathEscape(id) }
