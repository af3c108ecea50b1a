package wire

import (
	"fmt"
	"net/url"
	"strconv"
)

// unsafeSchemes run code or read local data when a page or an app opens
// them: never a payment link.
var unsafeSchemes = map[string]bool{
	"javascript": true, "vbscript": true, "data": true, "file": true,
	"about": true, "blob": true, "filesystem": true,
}

// CheckWebURL checks a hosted page's address (payment_link, payment_url):
// an absolute http or https URL with a host.
func CheckWebURL(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %s is not an absolute http(s) URL", field, quoteShort(s))
	}
	return nil
}

// CheckAppLink checks a link a UPI app opens: upi: or the app's own scheme
// (phonepe:, tez:, ...), never one that runs code or reads local data.
func CheckAppLink(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || unsafeSchemes[u.Scheme] {
		return appLinkError(field, s)
	}
	return nil
}

func appLinkError(field, s string) error {
	return fmt.Errorf("%s %s is not a UPI or app link", field, quoteShort(s))
}

// quoteShort quotes at most the first 64 bytes of s, for an error.
func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return strconv.Quote(s)
}
