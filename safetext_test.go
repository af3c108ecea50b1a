package upicollect_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// TestMessageFormatCharactersEscaped: a bidi override, an isolate or a
// zero-width character in the service's message reaches APIError.Error()
// escaped, so an error cannot show text reversed or hidden; the Message
// field keeps the service's text.
func TestMessageFormatCharactersEscaped(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, msg, want string }{
		{"bidi override", "refund of \u202e99.994\u202c rupees", `refund of \u202e99.994\u202c rupees`},
		{"isolates", "order \u2066ORD-1\u2069 \u2067x\u2068", `order \u2066ORD-1\u2069 \u2067x\u2068`},
		{"zero width", "pa\u200bid\u200d\ufeff", `pa\u200bid\u200d\ufeff`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg, err := json.Marshal(tt.msg)
			require.NoError(t, err)
			srv := newTestServer(t, always(400, []byte(`{"status":false,"statusCode":400,"msg":`+string(msg)+`}`)))
			c, _ := newClient(t, srv.BaseURL())
			_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.msg, ae.Message)
			assert.Contains(t, err.Error(), tt.want)
			for _, r := range err.Error() {
				assert.True(t, upicollect.SafeToShow(r), "%U in %q", r, err.Error())
			}
		})
	}
}

func TestSafeToShow(t *testing.T) {
	for _, r := range []rune{0x1b, '\n', 0x9b, 0x202e, 0x2066, 0x2069, 0x200b, 0xfeff} {
		assert.False(t, upicollect.SafeToShow(r), "%U", r)
	}
	for _, r := range []rune{'a', ' ', '₹', 'é', 0x2028} {
		assert.True(t, upicollect.SafeToShow(r), "%U", r)
	}
}
