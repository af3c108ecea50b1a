package sandbox

import (
	"net/http"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// Payer VPA reported by the data-status shape for orders that have none.
const payerVPA = "payer.sandbox@oksbi"

// statusMessages are the status answers' msg for each final state.
var statusMessages = map[string]string{
	StatusSuccess: "Transaction is successful",
	StatusFail:    "Transaction failed",
	StatusReject:  "Transaction rejected",
}

// statusAnswer is the checkPaymentStatus answer for o (nil: unknown).
func statusAnswer(v variantSet, o *Order) (int, object) {
	if o == nil || o.Status == StatusPending {
		if v.has(VariantNotFound404) {
			return http.StatusNotFound, failure(v, http.StatusNotFound, "Transaction not found")
		}
		return http.StatusOK, object{{"status", false}, {"statusCode", statusCode(v, 200)},
			{"txnStatus", StatusPending}, {"msg", "Transaction not found"}}
	}
	var amount any = number(rupeesNumber(o.PaidPaise))
	if v.has(VariantStringAmounts) {
		amount = vocab.FormatRupees(o.PaidPaise)
	}
	paid := o.Status == StatusSuccess
	head := object{{"status", paid || v.has(VariantFailedStatusTrue)}, {"statusCode", statusCode(v, 200)}}
	msg := member{"msg", statusMessages[o.Status]}
	switch {
	case v.has(VariantStatusInData):
		vpa := o.VPA
		if vpa == "" {
			vpa = payerVPA
		}
		data := object{{"order_id", o.OrderID}, {"amount", amount}, {"vpa", vpa}, {"status", o.Status}}
		if o.UTR != "" {
			data = append(data, member{"transaction_id", o.UTR})
		}
		return http.StatusOK, append(head, msg, member{"data", data})
	case v.has(VariantStatusBare) && !paid:
		return http.StatusOK, append(head, msg)
	case v.has(VariantStatusBare):
		return http.StatusOK, append(head, msg,
			member{"data", object{{"amount", amount}, {"UTR", o.UTR}, {"order_id", o.OrderID}}})
	}
	head = append(head, member{"txnStatus", o.Status}, msg)
	if paid {
		return http.StatusOK, append(head, member{"data", object{{"amount", amount}, {"UTR", o.UTR}, {"order_id", o.OrderID}}})
	}
	data := object{{"order_id", o.OrderID}, {"amount", amount}}
	if o.UTR != "" {
		data = append(data, member{"UTR", o.UTR})
	}
	return http.StatusOK, append(head, member{"data", data})
}
