package sandbox

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// serveAPI answers /v1/payments/{op}: scripted faults first, then the
// operation itself.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	op := r.PathValue("op")
	v := s.Variants()
	if _, ok := opFields[op]; !ok {
		writeJSON(w, http.StatusNotFound, failure(v, http.StatusNotFound, "Unknown operation "+op))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, failure(v, http.StatusMethodNotAllowed, "Method not allowed; use POST"))
		return
	}
	f := s.takeFault(op)
	delay := s.cfg.latency
	if f != nil {
		info := infoOf(r)
		info.fault = true
		// Recorded now, not when the handler returns: a reset reaches the
		// client before that, and a test may read Requests at once.
		s.markFault(info.rec)
		delay += f.Latency
	}
	if !s.sleep(r.Context(), delay) {
		// The client gave up or the server is closing: drop the connection
		// rather than let net/http answer an empty 200.
		panic(http.ErrAbortHandler)
	}
	if f != nil {
		s.applyFault(w, r, op, f)
		return
	}
	s.process(w, r, op)
}

// process performs op for r and writes the service's answer.
func (s *Server) process(w http.ResponseWriter, r *http.Request, op string) {
	v := s.Variants()
	if r.Header.Get("Authorization") == "" {
		writeJSON(w, http.StatusUnauthorized, missingAuth())
		return
	}
	if pk, sk, ok := r.BasicAuth(); !ok || !equal(pk, s.cfg.publicKey) || !equal(sk, s.cfg.secretKey) {
		writeJSON(w, http.StatusUnauthorized, failure(v, http.StatusUnauthorized, "Invalid credentials"))
		return
	}
	info := infoOf(r)
	switch {
	case errors.Is(info.bodyErr, errBodyTooLarge):
		writeJSON(w, http.StatusRequestEntityTooLarge, failure(v, http.StatusRequestEntityTooLarge, "Request body too large"))
		return
	case info.bodyErr != nil:
		writeJSON(w, http.StatusBadRequest, failure(v, http.StatusBadRequest, "Request body could not be read"))
		return
	case errors.Is(info.parseErr, errUnsupportedType):
		writeJSON(w, http.StatusUnsupportedMediaType, failure(v, http.StatusUnsupportedMediaType, info.parseErr.Error()))
		return
	case info.parseErr != nil:
		writeJSON(w, http.StatusBadRequest, failure(v, http.StatusBadRequest, info.parseErr.Error()))
		return
	}
	fields := info.fields
	// The merchant is checked before the content: a wrong mid is an
	// authentication failure, whatever else the body holds.
	if mid, ok := fields["mid"]; !ok || mid == "" {
		writeJSON(w, http.StatusBadRequest, failure(v, http.StatusBadRequest, "mid is required"))
		return
	} else if !equal(mid, s.cfg.mid) {
		writeJSON(w, http.StatusUnauthorized, failure(v, http.StatusUnauthorized, "Invalid mid"))
		return
	}
	if problem := validate(op, fields); problem != "" {
		writeJSON(w, http.StatusBadRequest, failure(v, http.StatusBadRequest, problem))
		return
	}
	if op == OpCheckPaymentStatus {
		o, ok := s.store.get(fields["order_id"])
		var found *Order
		if ok {
			found = &o
		}
		code, body := statusAnswer(v, found)
		writeJSON(w, code, body)
		return
	}
	o, err := s.create(op, fields)
	if err != nil {
		writeJSON(w, http.StatusConflict, failure(v, http.StatusConflict, "Order ID already exists"))
		return
	}
	base := s.baseURL(r)
	var msg string
	var data object
	switch op {
	case OpCreatePaymentIntent:
		msg, data = "Payment intent created successfully", s.intentData(v, base, o)
	case OpCreatePaymentRequest:
		msg, data = "Payment request created successfully", object{
			{"orderId", o.OrderID}, {"payment_url", pageURL(base, o.OrderID)}}
	case OpCreatePaymentLink:
		msg, data = "Payment link created successfully", object{{"payment_link", pageURL(base, o.OrderID)}}
	}
	writeJSON(w, http.StatusOK, success(v, msg, data))
}

// equal compares secrets in constant time.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// create stores a new PENDING order from validated fields.
func (s *Server) create(op string, f map[string]string) (*Order, error) {
	now := s.now()
	rupees := int64(0)
	for _, c := range f["amount"] { // validated: 1 to 6 digits
		rupees = rupees*10 + int64(c-'0')
	}
	o := &Order{
		MID:         f["mid"],
		AmountPaise: rupees * 100,
		Amount:      formatRupees(rupees * 100),
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

// intentData is the createPaymentIntent data object.
func (s *Server) intentData(v Variants, base string, o *Order) object {
	q := s.upiQuery(o)
	d := object{
		{"intent", "upi://pay?" + q},
		{"phonepe", "phonepe://pay?" + q},
		{"paytm", "paytmmp://pay?" + q},
		{"gpay", "tez://upi/pay?" + q},
	}
	if v.IntentExtras {
		d = append(d, member{"cred", "credpay://upi/pay?" + q}, member{"merchantName", s.cfg.merchantName})
	}
	return append(d,
		member{"dynamicQR", base + qrPrefix + url.PathEscape(o.OrderID) + ".png"},
		member{"expiry", o.ExpiresAt.In(indiaTime).Format(time.DateTime)},
		member{"amount", rupeesNumber(o.AmountPaise)},
		member{"orderId", o.OrderID},
	)
}

// upiQuery is the query of the order's UPI links, in the customary order.
func (s *Server) upiQuery(o *Order) string {
	return "pa=" + upiEscape(s.cfg.merchantVPA) +
		"&pn=" + upiEscape(s.cfg.merchantName) +
		"&am=" + formatRupees(o.AmountPaise) +
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

// Payer VPA reported by the data-status shape for orders that have none.
const payerVPA = "payer.sandbox@oksbi"

// statusAnswer is the checkPaymentStatus answer for o (nil: unknown).
func statusAnswer(v Variants, o *Order) (int, object) {
	if o == nil || o.Status == StatusPending {
		if v.NotFound404 {
			return http.StatusNotFound, failure(v, http.StatusNotFound, "Transaction not found")
		}
		return http.StatusOK, object{{"status", false}, {"statusCode", statusCode(v, 200)},
			{"txnStatus", StatusPending}, {"msg", "Transaction not found"}}
	}
	var amount any = number(rupeesNumber(o.PaidPaise))
	if v.StringAmounts {
		amount = formatRupees(o.PaidPaise)
	}
	paid := o.Status == StatusSuccess
	msg := map[string]string{
		StatusSuccess: "Transaction is successful",
		StatusFail:    "Transaction failed",
		StatusReject:  "Transaction rejected",
	}[o.Status]
	head := object{{"status", paid}, {"statusCode", statusCode(v, 200)}}
	switch v.StatusShape {
	case StatusShapeDataStatus:
		vpa := o.VPA
		if vpa == "" {
			vpa = payerVPA
		}
		data := object{{"order_id", o.OrderID}, {"amount", amount}, {"vpa", vpa}, {"status", o.Status}}
		if o.UTR != "" {
			data = append(data, member{"transaction_id", o.UTR})
		}
		return http.StatusOK, append(head, member{"msg", msg}, member{"data", data})
	case StatusShapeBare:
		if !paid {
			return http.StatusOK, append(head, member{"msg", msg})
		}
		return http.StatusOK, append(head, member{"msg", msg},
			member{"data", object{{"amount", amount}, {"UTR", o.UTR}, {"order_id", o.OrderID}}})
	}
	head = append(head, member{"txnStatus", o.Status}, member{"msg", msg})
	if paid {
		return http.StatusOK, append(head, member{"data", object{{"amount", amount}, {"UTR", o.UTR}, {"order_id", o.OrderID}}})
	}
	data := object{{"order_id", o.OrderID}, {"amount", amount}}
	if o.UTR != "" {
		data = append(data, member{"UTR", o.UTR})
	}
	return http.StatusOK, append(head, member{"data", data})
}
