package upicollect_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// intentAnswer is an intent answer for ₹499 and ORD-1001 with a good
// generic link and the given app links.
func intentAnswer(t *testing.T, apps map[string]string) []byte {
	t.Helper()
	data := map[string]string{"intent": "upi://pay?pa=acme@okaxis&pn=Acme&am=499.00&tr=ORD-1001&cu=INR", "amount": "499", "orderId": "ORD-1001"}
	for k, v := range apps {
		data[k] = v
	}
	b, err := json.Marshal(map[string]any{"status": true, "statusCode": 200, "msg": "ok", "data": data})
	require.NoError(t, err)
	return b
}

const goodPhonePe = "phonepe://pay?pa=acme@okaxis&pn=Acme&am=499.00&tr=ORD-1001&cu=INR"

// TestCreatePaymentIntentDropsAppLinksThatPayNobody: an app's link that
// cannot be read, or names no payee, pays nobody: it is dropped from
// AppLinks, reported to the logger and to the Observer (CallEnd), and the
// intent with its other links is returned. A link that names another
// payee, amount or order, or has a web scheme, still refuses the answer.
func TestCreatePaymentIntentDropsAppLinksThatPayNobody(t *testing.T) {
	t.Parallel()
	const unreadable, noPayee = "cannot be read as a UPI or app link", "names no payee (pa)"
	for _, tt := range []struct {
		name    string
		apps    map[string]string
		kept    []string
		dropped []upicollect.DroppedLink
		refused string // the error's text, when the answer is refused
	}{
		{name: "unreadable cred", apps: map[string]string{"phonepe": goodPhonePe, "cred": "credpay://upi/pay?pa=acme@okaxis&am=499.00&tr=ORD-1001&tn=50%off"},
			kept: []string{"phonepe"}, dropped: []upicollect.DroppedLink{{App: "cred", Reason: unreadable}}},
		{name: "bad escape and no payee", apps: map[string]string{
			"phonepe": goodPhonePe, "paytm": "paytmmp://pay?am=499.00&tr=ORD-1001", "gpay": "tez://upi/pay?pa=acme@okaxis&am=%zz"},
			kept: []string{"phonepe"}, dropped: []upicollect.DroppedLink{{App: "gpay", Reason: unreadable}, {App: "paytm", Reason: noPayee}}},
		{name: "every app link dropped", apps: map[string]string{"cred": "credpay://upi/pay?pn=Acme"},
			kept: []string{}, dropped: []upicollect.DroppedLink{{App: "cred", Reason: noPayee}}},
		{name: "all good", apps: map[string]string{"phonepe": goodPhonePe}, kept: []string{"phonepe"}},
		{name: "another payee", apps: map[string]string{"phonepe": goodPhonePe, "cred": "credpay://upi/pay?pa=evil@ybl&am=499.00&tr=ORD-1001"},
			refused: `cred pa: want "acme@okaxis", got "evil@ybl"`},
		{name: "another amount", apps: map[string]string{"cred": "credpay://upi/pay?pa=acme@okaxis&am=1.00&tr=ORD-1001", "paytm": "paytmmp://pay?am=499.00"},
			refused: `cred am: want "499.00", got "1.00"`},
		{name: "another order", apps: map[string]string{"cred": "credpay://upi/pay?pa=acme@okaxis&am=499.00&tr=ORD-9"},
			refused: `cred tr: want "ORD-1001", got "ORD-9"`},
		{name: "a web link", apps: map[string]string{"cred": "https://evil.example/pay"},
			refused: `cred link: want "a UPI link"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(http.StatusOK, intentAnswer(t, tt.apps)))
			var logs syncBuffer
			obs := &recordingObserver{}
			c, _ := newClient(t, srv.BaseURL(), upicollect.WithObserver(obs),
				upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			in, err := c.CreatePaymentIntent(context.Background(), validInput().intent())
			events := obs.Events()
			require.NotEmpty(t, events)
			end := events[len(events)-1]
			require.Equal(t, "call end", end.Kind)
			if tt.refused != "" {
				assertSentinels(t, err, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown)
				assert.Contains(t, err.Error(), tt.refused)
				assert.Nil(t, end.End.DroppedLinks, "nothing reported dropped from a refused answer")
				assert.NotContains(t, logs.String(), "app link dropped")
				return
			}
			require.NoError(t, err)
			keys := []string{}
			for k := range in.AppLinks {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, tt.kept, keys)
			assert.Equal(t, tt.dropped, end.End.DroppedLinks)
			assert.Equal(t, upicollect.OutcomeSuccess, end.End.Outcome)
			var warned []upicollect.DroppedLink
			for _, line := range splitJSONLines(t, logs.String()) {
				if line["msg"] == "upicollect: app link dropped" {
					assert.Equal(t, "WARN", line["level"])
					assert.Equal(t, "ORD-1001", line["order_id"])
					assert.Equal(t, "createPaymentIntent", line["op"])
					warned = append(warned, upicollect.DroppedLink{App: line["app"].(string), Reason: line["reason"].(string)})
				}
			}
			assert.Equal(t, tt.dropped, warned)
		})
	}
}

// TestCreatePaymentIntentDropsWithoutObserver: without an Observer the
// link is dropped and logged all the same.
func TestCreatePaymentIntentDropsWithoutObserver(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, always(http.StatusOK, intentAnswer(t, map[string]string{"phonepe": goodPhonePe, "cred": "credpay://upi/pay?am=499.00&tr=ORD-1001"})))
	var logs syncBuffer
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	in, err := c.CreatePaymentIntent(context.Background(), validInput().intent())
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"phonepe": goodPhonePe}, in.AppLinks)
	assert.Contains(t, logs.String(), `"msg":"upicollect: app link dropped"`)
	assert.Contains(t, logs.String(), `"app":"cred"`)
}

// splitJSONLines decodes a JSON log, one record a line.
func splitJSONLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	for dec.More() {
		var m map[string]any
		require.NoError(t, dec.Decode(&m))
		out = append(out, m)
	}
	return out
}
