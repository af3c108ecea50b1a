package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// serveOrders answers GET /sandbox/orders with every order, oldest first.
func (s *Server) serveOrders(w http.ResponseWriter, _ *http.Request) {
	writeValue(w, http.StatusOK, s.Orders())
}

// serveOrder answers GET /sandbox/orders/{id}.
func (s *Server) serveOrder(w http.ResponseWriter, r *http.Request) {
	o, ok := s.Order(r.PathValue("id"))
	if !ok {
		writeValue(w, http.StatusNotFound, controlError{ErrOrderNotFound.Error()})
		return
	}
	writeValue(w, http.StatusOK, o)
}

// servePay answers POST /sandbox/orders/{id}/pay: form result
// (SUCCESS, FAIL or REJECT; default SUCCESS), optional utr and optional
// amount (the paid amount in rupees, "1.08", for the status check). With
// return=page (the hosted page's buttons) it redirects with 303: intents to
// their redirect_url with order_id added, other orders back to their page.
func (s *Server) servePay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	info := infoOf(r)
	if info.parseErr != nil || info.bodyErr != nil {
		writeValue(w, http.StatusBadRequest, controlError{"body must be a form: result=SUCCESS|FAIL|REJECT&utr=..."})
		return
	}
	f := info.fields
	result := strings.ToUpper(f["result"])
	if result == "" {
		result = StatusSuccess
	}
	set := Settlement{Result: result, UTR: f["utr"]}
	if a, ok := f["amount"]; ok {
		if set.PaidPaise, ok = parseRupees(a); !ok {
			writeValue(w, http.StatusBadRequest, controlError{ErrInvalidAmount.Error()})
			return
		}
	}
	o, err := s.SettleWith(id, set)
	if err != nil {
		code := http.StatusBadRequest
		switch {
		case errors.Is(err, ErrOrderNotFound):
			code = http.StatusNotFound
		case errors.Is(err, ErrOrderSettled):
			code = http.StatusConflict
		case errors.Is(err, ErrIntentExpired):
			code = http.StatusGone
		}
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
	writeValue(w, http.StatusOK, o)
}

// afterPayURL is where the hosted page sends the customer once settled.
func afterPayURL(o Order) string {
	if o.Kind != KindIntent {
		return pagePrefix + url.PathEscape(o.OrderID)
	}
	u, err := url.Parse(o.RedirectURL) // validated at creation
	if err != nil {
		return pagePrefix + url.PathEscape(o.OrderID)
	}
	q := u.Query()
	q.Set("order_id", o.OrderID)
	u.RawQuery = q.Encode()
	return u.String()
}

// controlError is the body of a failed control call.
type controlError struct {
	Error string `json:"error"`
}

// writeValue answers v as indented JSON.
func writeValue(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
