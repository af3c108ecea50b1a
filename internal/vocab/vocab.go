// Package vocab holds the words the SDK and the sandbox share about the
// Payment Collection Service: its operation names, where they live, the
// service's time zone, how an amount is written and the names of the UPI
// apps its intents link to. It holds names only, never rules: the sandbox
// validates requests on its own, so that it can catch the SDK's mistakes.
package vocab

import (
	"strconv"
	"time"
)

// Operation names, as they appear in the path PathPrefix + op.
const (
	OpCreatePaymentIntent  = "createPaymentIntent"
	OpCreatePaymentRequest = "createPaymentRequest"
	OpCreatePaymentLink    = "createPaymentLink"
	OpCheckPaymentStatus   = "checkPaymentStatus"
	OpCreateOrderRequest   = "createOrderRequest" // the vendor's hosted checkout
)

// PathPrefix is where every operation lives, below the base URL.
const PathPrefix = "/v1/payments/"

// IndiaTime is India Standard Time (UTC+05:30), the service's clock, as a
// fixed zone so that no tzdata is needed.
var IndiaTime = time.FixedZone("IST", 5*3600+30*60)

// ExpiryLayout is how the service writes an intent's expiry, in IndiaTime.
const ExpiryLayout = time.DateTime // "2006-01-02 15:04:05"

// FormatRupees writes an amount in paise as rupees with exactly two
// decimals and no grouping: 108 -> "1.08", 49900 -> "499.00", -5 ->
// "-0.05". It is exact for every int64, math.MinInt64 included.
func FormatRupees(paise int64) string {
	u := uint64(paise)
	sign := ""
	if paise < 0 {
		sign = "-"
		u = -u // two's complement: right for math.MinInt64 too
	}
	frac := u % 100
	return sign + strconv.FormatUint(u/100, 10) + "." + string([]byte{byte('0' + frac/10), byte('0' + frac%10)})
}

// UPIApp is a UPI app an intent answer links to: Key is the answer's field
// for the app's link, Name the app's own name, as a payer knows it.
type UPIApp struct{ Key, Name string }

// UPIApps are the apps known by their answer key, in the order a pay page
// lists them: the most used apps first (PhonePe and Google Pay carry most
// UPI payments, then Paytm), then CRED and BHIM.
var UPIApps = [...]UPIApp{
	{"phonepe", "PhonePe"},
	{"gpay", "Google Pay"},
	{"paytm", "Paytm"},
	{"cred", "CRED"},
	{"bhim", "BHIM"},
}

// AppName is the name of the app whose link an intent answer carries under
// key, "" for a key not in UPIApps.
func AppName(key string) string {
	for _, a := range UPIApps {
		if a.Key == key {
			return a.Name
		}
	}
	return ""
}
