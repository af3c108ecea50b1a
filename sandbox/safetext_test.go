package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHostedPageEscapesFormatCharacters: an order's note and customer name
// holding a bidi override, an isolate or a zero-width character reach the
// payer's page escaped, so the page cannot show text reversed or hidden.
func TestHostedPageEscapesFormatCharacters(t *testing.T) {
	s := fixed(t)
	call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "i-1",
		"note", "refund of \u202e99.994\u202c", "customer_name", "Ravi\u200b \u2066Kumar\u2069"))
	html := string(get(t, s, "/sandbox/pay/i-1").body)
	assert.Contains(t, html, `refund of \u202e99.994\u202c`)
	assert.Contains(t, html, `Ravi\u200b \u2066Kumar\u2069`)
	for _, r := range "\u202e\u202c\u200b\u2066\u2069" {
		assert.NotContains(t, html, string(r))
	}
	assert.Contains(t, html, "\n", "the page keeps its lines")
}
