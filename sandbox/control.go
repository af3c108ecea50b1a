package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
)

// serveOrders answers GET /sandbox/orders with every order, oldest first.
func (s *Service) serveOrders(w http.ResponseWriter, _ *http.Request) {
	writeValue(w, http.StatusOK, s.Orders())
}

// serveOrder answers GET /sandbox/orders/{id}.
func (s *Service) serveOrder(w http.ResponseWriter, r *http.Request) {
	o, ok := s.Order(r.PathValue("order_id"))
	if !ok {
		writeValue(w, http.StatusNotFound, controlError{ErrOrderNotFound.Error()})
		return
	}
	writeValue(w, http.StatusOK, o)
}

// servePay answers POST /sandbox/orders/{order_id}/pay, settle over
// HTTP: form result (SUCCESS, FAIL or REJECT; required), optional utr,
// optional amount (the paid amount, in rupees: "1.08") and optional after
// (a Go duration: the bank's outcome at that much sandbox time from now,
// as Settle, answered 202; without it, the payer's choice now, as
// SettleWith). With return=page (the hosted
// page's buttons) it answers 303: an intent to its redirect_url exactly
// as given, other orders back to their page.
func (s *Service) servePay(w http.ResponseWriter, r *http.Request, req *request) {
	if refuseCrossSite(w, r) {
		return
	}
	id := r.PathValue("order_id")
	f := req.form.vals
	if req.parseErr != nil || req.bodyErr != nil || f["result"] == "" {
		writeValue(w, http.StatusBadRequest, controlError{"body must be a form: result=SUCCESS|FAIL|REJECT&utr=..."})
		return
	}
	result := upicollect.TxnStatus(strings.ToUpper(f["result"]))
	c := ScheduledChange{Result: string(result), UTR: f["utr"]}
	if a, ok := f["amount"]; ok {
		p, ok := parseRupees(a)
		if !ok || p <= 0 || p > maxOrderPaise {
			writeValue(w, http.StatusBadRequest, controlError{ErrInvalidAmount.Error()})
			return
		}
		c.PaidPaise = p
	}
	code, at := http.StatusOK, time.Time{}
	if a, ok := f["after"]; ok {
		d, perr := time.ParseDuration(a)
		if perr != nil || d < 0 {
			writeValue(w, http.StatusBadRequest, controlError{`after must be a duration such as "90s" or "2h", not negative`})
			return
		}
		code, at = http.StatusAccepted, s.now().Add(d)
	}
	c.At = at
	o, err := s.settle(id, c, !at.IsZero())
	if err != nil {
		code := settleErrorStatus(err)
		if f["return"] == "page" && code != http.StatusNotFound {
			s.renderPage(w, r, http.StatusOK, id, err)
			return
		}
		writeValue(w, code, controlError{err.Error()})
		return
	}
	if f["return"] == "page" {
		http.Redirect(w, r, afterPayURL(o), http.StatusSeeOther)
		return
	}
	writeValue(w, code, o)
}

// settleErrorStatus is the HTTP status of a Settle error.
func settleErrorStatus(err error) int {
	switch {
	case errors.Is(err, ErrOrderNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrOrderSettled):
		return http.StatusConflict
	case errors.Is(err, ErrIntentExpired):
		return http.StatusGone
	}
	return http.StatusBadRequest
}

// afterPayURL is where the hosted page sends the payer once settled: an
// intent's or order request's redirect_url exactly as the merchant gave it
// (the live service adds nothing), other orders' own page.
func afterPayURL(o Order) string {
	if o.RedirectURL == "" {
		return pagePrefix + url.PathEscape(o.OrderID)
	}
	return o.RedirectURL
}

// clockFormat is RFC 3339 with all nine digits of nanoseconds, so that a
// reader loses nothing and every answer has one length.
const clockFormat = "2006-01-02T15:04:05.000000000Z07:00"

// serveClock answers GET /sandbox/clock with the sandbox's current time
// (WithClock's), so that a sweeper in another process steps at sandbox
// time.
func (s *Service) serveClock(w http.ResponseWriter, _ *http.Request) {
	writeValue(w, http.StatusOK, clockAnswer{s.now().Format(clockFormat)})
}

// clockAnswer is the body of GET and POST /sandbox/clock.
type clockAnswer struct {
	Now string `json:"now"`
}

// lastClockTime is the latest time POST /sandbox/clock moves a clock to:
// the end of the year 9998. The clock's answers (RFC 3339) and the
// service's expiry write four-digit years, and a year's room keeps the
// running clock, India time and an intent's expiry within them.
var lastClockTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)

// moveClock answers POST /sandbox/clock, JSON {"advance":"2h"} (a Go
// duration, not negative) or {"set":"2026-03-01T10:00:00Z"} (RFC 3339,
// not before the sandbox's time), with the new time as GET does. The
// clock only moves forward: orders already created, settled and
// scheduled keep times that stay in the past. A move the clock cannot
// hold (past lastClockTime) is refused with 409, a body that is not one
// of the two with 400, and the clock stays where it was. A sandbox
// without WithMovableClock answers 409.
func (s *Service) moveClock(w http.ResponseWriter, r *http.Request, req *request) {
	if !s.controlBody(w, r, req, nil) {
		return
	}
	c := s.cfg.movable
	if c == nil {
		writeValue(w, http.StatusConflict, controlError{"this sandbox's clock cannot be moved: " +
			"start it with sandbox.WithMovableClock (upicollect sandbox always can)"})
		return
	}
	var body struct {
		Advance *string `json:"advance"`
		Set     *string `json:"set"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || (body.Advance == nil) == (body.Set == nil) {
		writeValue(w, http.StatusBadRequest, controlError{`body must be JSON {"advance":"2h"} or {"set":"2026-03-01T10:00:00Z"}`})
		return
	}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	now := c.Now()
	var d time.Duration
	var at time.Time
	if body.Advance != nil {
		var err error
		d, err = time.ParseDuration(*body.Advance)
		if err != nil || d < 0 {
			writeValue(w, http.StatusBadRequest, controlError{`advance must be a duration such as "90s" or "2h", not negative`})
			return
		}
		at = now.Add(d) // saturates far past lastClockTime rather than wrap
	} else {
		var err error
		at, err = time.Parse(time.RFC3339Nano, *body.Set)
		if err != nil {
			writeValue(w, http.StatusBadRequest, controlError{`set must be an RFC 3339 time such as "2026-03-01T10:00:00Z"`})
			return
		}
		if at.Before(now) {
			writeValue(w, http.StatusConflict, controlError{"set " + at.Format(clockFormat) +
				" is before the sandbox's time " + now.Format(clockFormat) + ": the clock only moves forward"})
			return
		}
	}
	if at.After(lastClockTime) {
		writeValue(w, http.StatusConflict, controlError{"the sandbox's clock cannot move past " + lastClockTime.Format(clockFormat) +
			" (it is " + now.Format(clockFormat) + "); the clock did not move"})
		return
	}
	if body.Advance != nil {
		c.Advance(d)
	} else {
		c.Set(at.In(now.Location())) // the sandbox's zone stays, and every answer one length
	}
	writeValue(w, http.StatusOK, clockAnswer{c.Now().Format(clockFormat)})
}

// serveVariants answers GET /sandbox/variants: every variant and its state.
func (s *Service) serveVariants(w http.ResponseWriter, _ *http.Request) {
	writeValue(w, http.StatusOK, s.variantSet().list())
}

// switchVariants answers POST /sandbox/variants, JSON
// {"enable":[…],"disable":[…]}, with the new list.
func (s *Service) switchVariants(w http.ResponseWriter, r *http.Request, req *request) {
	var body struct {
		Enable  []string `json:"enable"`
		Disable []string `json:"disable"`
	}
	if !s.controlBody(w, r, req, &body) {
		return
	}
	if err := s.setVariants(body.Enable, body.Disable); err != nil {
		writeValue(w, http.StatusBadRequest, controlError{err.Error()})
		return
	}
	writeValue(w, http.StatusOK, s.variantSet().list())
}

// addFault answers POST /sandbox/faults: queue the fault in the body.
func (s *Service) addFault(w http.ResponseWriter, r *http.Request, req *request) {
	if !s.controlBody(w, r, req, nil) {
		return
	}
	var f Fault
	if err := json.Unmarshal(req.body, &f); err != nil {
		writeValue(w, http.StatusBadRequest, controlError{err.Error()})
		return
	}
	s.InjectFault(f)
	writeValue(w, http.StatusCreated, struct {
		Queued int `json:"queued"`
	}{s.faultCount()})
}

// clearFaults answers DELETE /sandbox/faults.
func (s *Service) clearFaults(w http.ResponseWriter, r *http.Request) {
	if refuseCrossSite(w, r) {
		return
	}
	s.Clear(Faults)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) faultCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// controlBody checks a JSON control call and decodes its body into v
// (nil: only checks). It answers the refusal itself and reports whether
// to go on.
func (s *Service) controlBody(w http.ResponseWriter, r *http.Request, req *request, v any) bool {
	if refuseCrossSite(w, r) {
		return false
	}
	if req.bodyErr != nil {
		writeValue(w, http.StatusBadRequest, controlError{"body could not be read (at most 64 KiB)"})
		return false
	}
	if v == nil {
		return true
	}
	if err := json.Unmarshal(req.body, v); err != nil {
		writeValue(w, http.StatusBadRequest, controlError{"body must be JSON: " + err.Error()})
		return false
	}
	return true
}

// refuseCrossSite answers 403 to a browser's cross-site control call
// (sameOrigin) and reports whether it did.
func refuseCrossSite(w http.ResponseWriter, r *http.Request) bool {
	if sameOrigin(r) {
		return false
	}
	writeValue(w, http.StatusForbidden, controlError{"cross-site requests may not change the sandbox"})
	return true
}

// controlError is the body of a failed control call.
type controlError struct {
	Error string `json:"error"`
}

// writeValue answers v as indented JSON.
func writeValue(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "the answer could not be encoded", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
