package e2e

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

// apiTimeout bounds every SDK call and plain HTTP fetch of these tests.
const apiTimeout = 10 * time.Second

// customer is the payer of every order here; the hosted page masks its
// e-mail and mobile as maskedEmail and maskedMobile.
var customer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765 43210"}

const (
	maskedEmail  = "r***@example.com"
	maskedMobile = "******3210"
)

// apiContext is a context for one SDK call or fetch, cancelled at cleanup.
func apiContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	t.Cleanup(cancel)
	return ctx
}

// createIntent creates a payment intent through the SDK client and checks
// the parts of the answer these tests rely on.
func createIntent(t *testing.T, s *sandbox.Server, p upicollect.IntentParams) *upicollect.Intent {
	t.Helper()
	in, err := s.Client().CreatePaymentIntent(apiContext(t), &p)
	if err != nil {
		t.Fatalf("CreatePaymentIntent: %v", err)
	}
	if in.OrderID != p.OrderID {
		t.Fatalf("intent order id = %q, want %q", in.OrderID, p.OrderID)
	}
	if in.Link == "" || in.DynamicQR == "" {
		t.Fatalf("intent without link or dynamic QR: link %q, dynamicQR %q", in.Link, in.DynamicQR)
	}
	return in
}

// hostedPageURL is the sandbox's hosted payment page of an order.
func hostedPageURL(s *sandbox.Server, orderID string) string {
	return s.URL() + "/sandbox/pay/" + url.PathEscape(orderID)
}

// fetch GETs link with the sandbox's HTTP client and returns the body,
// failing the test unless the answer is 200 with the given content type.
func fetch(t *testing.T, s *sandbox.Server, link, wantType string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(apiContext(t), http.MethodGet, link, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", link, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %.200s", link, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != wantType {
		t.Fatalf("GET %s: Content-Type %q, want %q", link, ct, wantType)
	}
	return body
}

var (
	imgTag  = regexp.MustCompile(`(?i)<img\b[^>]*>`)
	attrRe  = regexp.MustCompile(`(?i)\b([a-z-]+)="([^"]*)"`)
	classRe = regexp.MustCompile(`(?:^|\s)qr(?:\s|$)`)
)

// qrImageURL finds the QR code <img class="qr"> of a hosted page and returns
// its src resolved against the page's URL.
func qrImageURL(pageURL string, page []byte) (string, error) {
	for _, tag := range imgTag.FindAllString(string(page), -1) {
		attrs := map[string]string{}
		for _, m := range attrRe.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = html.UnescapeString(m[2])
		}
		if !classRe.MatchString(attrs["class"]) || attrs["src"] == "" {
			continue
		}
		base, err := url.Parse(pageURL)
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(attrs["src"])
		if err != nil {
			return "", fmt.Errorf("QR image src %q: %w", attrs["src"], err)
		}
		return base.ResolveReference(ref).String(), nil
	}
	return "", fmt.Errorf("no <img class=\"qr\"> with a src in the page")
}
