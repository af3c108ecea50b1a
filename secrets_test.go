package upicollect_test

import (
	"bytes"
	"context"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// TestSecretsNeverLeak drives every operation through every outcome and
// checks that the secret key and the Authorization value appear in no
// error, no formatted value and no log record, and that logs mask the
// customer's e-mail, mobile and VPA.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	const (
		pub    = "pk_live_7Hq2Lx"
		secret = "sk_live_Zr8vW3mQpT6yN1"
	)
	creds := upicollect.Credentials{MID: "MID777", PublicKey: pub, SecretKey: secret}
	auth := basicAuth(pub, secret)
	forbidden := []string{
		secret,
		auth,
		strings.TrimPrefix(auth, "Basic "),
		pub + ":" + secret,
		base64.URLEncoding.EncodeToString([]byte(pub + ":" + secret)),
	}

	outcomes := []struct {
		name string
		h    handlerFunc
	}{
		{"success", bySuccess(t)},
		{"success live shapes", func(w http.ResponseWriter, r *http.Request, n int) {
			switch {
			case strings.HasSuffix(r.URL.Path, opIntent):
				respond(w, 200, loadResponse(t, "intent_success_live_apps.json"))
			case strings.HasSuffix(r.URL.Path, opStatus):
				respond(w, 200, loadResponse(t, "status_success_data_status.json"))
			default:
				bySuccess(t)(w, r, n)
			}
		}},
		{"missing auth", always(401, loadResponse(t, "missing_auth.json"))},
		{"unauthorized", always(401, loadResponse(t, "unauthorized_401.json"))},
		{"invalid", always(400, loadResponse(t, "invalid_400.json"))},
		{"not found", always(404, loadResponse(t, "not_found_404.json"))},
		{"duplicate", always(409, loadResponse(t, "duplicate_409.json"))},
		{"rate limited", always(429, loadResponse(t, "rate_limited_429.json"))},
		{"server error", always(500, loadResponse(t, "server_error_500.json"))},
		{"bad gateway html", always(502, loadResponse(t, "bad_gateway_502.html"))},
		{"truncated", always(200, loadResponse(t, "truncated.json"))},
		{"refused", always(200, loadResponse(t, "refused_200.json"))},
		{"no data", always(200, loadResponse(t, "success_no_data.json"))},
		{"500 then 409", script(t, 500, 409)},
		{"redirect", func(w http.ResponseWriter, r *http.Request, _ int) {
			http.Redirect(w, r, "https://elsewhere.example.com/x", http.StatusFound)
		}},
		{"reset", script(t, 0)},
	}

	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	newSecretClient := func(base string) *upicollect.Client {
		c, err := upicollect.NewClient(creds, upicollect.WithBaseURL(base), upicollect.WithLogger(logger),
			upicollect.WithClock(newFakeClock()), upicollect.WithRand(fixedRand))
		require.NoError(t, err)
		return c
	}

	var texts []string
	show := func(v any) {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
	}
	show(creds)
	show(&creds)

	run := func(c *upicollect.Client, ctx context.Context, in createInput) {
		show(c)
		for _, op := range allOps {
			res, _, err := in.call(ctx, c, op)
			if err == nil {
				require.NotNil(t, res)
				show(res)
				continue
			}
			texts = append(texts, err.Error())
			show(err)
			if res != nil {
				show(res)
			}
		}
		st, err := c.WaitForPayment(ctx, testStatusOrder, upicollect.WithMaxWait(1))
		show(st)
		if err != nil {
			show(err)
		}
		show(in.intent())
		show(in.request())
		show(in.link())
	}

	for _, o := range outcomes {
		srv := newTestServer(t, o.h)
		run(newSecretClient(srv.BaseURL()), context.Background(), validInput())
		for _, req := range srv.Requests() {
			require.Equal(t, auth, req.Header.Get("Authorization"), "%s: the header is sent", o.name)
		}
	}
	// Transport errors: nothing listening.
	run(newSecretClient("http://"+closedAddr(t)+apiPrefix), context.Background(), validInput())
	// Validation errors.
	bad := validInput()
	bad.Amount, bad.OrderID, bad.VPA, bad.Customer.Email = 150, "bad id", "nope", "nope"
	srv := newTestServer(t, bySuccess(t))
	run(newSecretClient(srv.BaseURL()), context.Background(), bad)
	// Context errors.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run(newSecretClient(srv.BaseURL()), ctx, validInput())
	// NewClient errors, including one about the secret itself.
	_, err := upicollect.NewClient(upicollect.Credentials{MID: "m", PublicKey: pub, SecretKey: secret + "\n"},
		upicollect.WithBaseURL("http://api.example.com/?k="+secret))
	require.Error(t, err)
	texts = append(texts, err.Error())

	// Customer data in application logs goes through LogValue: masked.
	in := validInput()
	logger.Info("checkout", "params", in.intent())
	logger.Info("checkout", "params", *in.request())
	logger.Info("checkout", slog.Any("params", in.link()))
	logger.Info("checkout", "customer", in.Customer)
	st := &upicollect.PaymentStatus{OrderID: "ORD-1", TxnStatus: upicollect.TxnSuccess, Amount: 49900, UTR: "412345678901", VPA: testVPA}
	logger.Info("paid", "status", st)

	all := strings.Join(texts, "\n") + "\n" + logs.String()
	for _, f := range forbidden {
		assert.NotContains(t, all, f)
	}
	logged := logs.String()
	assert.Contains(t, logged, `"msg":"upicollect: attempt"`)
	assert.Contains(t, logged, `"msg":"upicollect: retrying"`)
	assert.Contains(t, logged, `"msg":"upicollect: call failed"`)
	for _, raw := range []string{testEmail, "98765-43210", testMobileSent, testVPA} {
		assert.NotContains(t, logged, raw, "customer data must be masked in logs")
	}
	assert.Contains(t, logged, `"email":"r***@example.com"`)
	assert.Contains(t, logged, `"mobile":"***********3210"`)
	assert.Contains(t, logged, `"vpa":"ra***@oksbi"`)
	assert.Contains(t, logged, `"amount":"499.00"`)
	assert.Contains(t, logged, `"status":{"order_id":"ORD-1","txn_status":"SUCCESS","amount":"499.00","utr":"412345678901","vpa":"ra***@oksbi"}`)
}

func TestLogMasks(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	for _, cu := range []upicollect.Customer{
		{Name: "A", Email: "a@x.in", Mobile: "1234"},
		{Name: "B", Email: "no-at-sign", Mobile: ""},
		{Name: "C", Email: "", Mobile: "98765"},
		{Name: "D", Email: "ab@x.in", Mobile: "9876543210"},
	} {
		logger.Info("c", "customer", cu)
	}
	logger.Info("r", "params", upicollect.RequestParams{VPA: "x@ybl"})
	logger.Info("r", "params", upicollect.RequestParams{VPA: "novpa"})
	logger.Info("r", "params", upicollect.RequestParams{VPA: "रविकुमार@ybl"})
	want := []string{
		`"customer":{"name":"A","email":"a***@x.in","mobile":"****"}`,
		`"customer":{"name":"B","email":"***","mobile":""}`,
		`"customer":{"name":"C","email":"","mobile":"*8765"}`,
		`"customer":{"name":"D","email":"a***@x.in","mobile":"******3210"}`,
		`"vpa":"***@ybl"`,
		`"vpa":"***"`,
		`"vpa":"रव***@ybl"`,
	}
	for _, w := range want {
		assert.Contains(t, buf.String(), w)
	}
}

// TestAuthHeaderRedacted: the client keeps the Authorization value in a
// type that prints as [REDACTED] under every verb and in logs.
func TestAuthHeaderRedacted(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, "https://api.example.com")
	h := upicollect.AuthHeader(c)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		assert.Equal(t, "[REDACTED]", fmt.Sprintf(verb, h), verb)
	}
	assert.Equal(t, "[REDACTED]", h.(fmt.Stringer).String())
	assert.Equal(t, "[REDACTED]", h.(fmt.GoStringer).GoString())
	assert.Equal(t, `"[REDACTED]"`, mustJSON(t, h))
	text, err := h.(encoding.TextMarshaler).MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "[REDACTED]", string(text))
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "auth", h)
	assert.Contains(t, buf.String(), `"auth":"[REDACTED]"`)
	assert.NotContains(t, buf.String(), strings.TrimPrefix(basicAuth(testPublic, testSecret), "Basic "))

	want := "upicollect.Client{base: https://api.example.com, mid: " + testMID + "}"
	assert.Equal(t, want, c.String())
	assert.Equal(t, want, c.GoString())
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.Equal(t, want, fmt.Sprintf(verb, c), verb)
	}
}

// TestSecretsInEveryEncoding prints and encodes the credentials, a struct
// that embeds them, one that holds them in a field, the client and a copy
// of the client's struct in every way a program might: no output holds the
// secret key or any form of the Authorization header.
func TestSecretsInEveryEncoding(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_Qw7Er9Ty2Ui4"
	creds := upicollect.Credentials{MID: "MID55", PublicKey: "pk_live_3Xc", SecretKey: secret}
	auth := basicAuth(creds.PublicKey, creds.SecretKey)
	forbidden := []string{secret, strings.TrimPrefix(auth, "Basic "), creds.PublicKey + ":" + secret}
	c, err := upicollect.NewClient(creds, upicollect.WithBaseURL("https://api.example.com"))
	require.NoError(t, err)

	type embeds struct {
		upicollect.Credentials
		Region string
	}
	type holds struct {
		Name  string
		Creds upicollect.Credentials
	}
	values := map[string]any{
		"Credentials":            creds,
		"*Credentials":           &creds,
		"struct embedding":       embeds{Credentials: creds, Region: "in"},
		"*struct embedding":      &embeds{Credentials: creds, Region: "in"},
		"struct with field":      holds{Name: "shop", Creds: creds},
		"*Client":                c,
		"Client value (copy)":    *c,
		"[]any of all":           []any{creds, c, *c},
		"map of Credentials":     map[string]upicollect.Credentials{"k": creds},
		"struct holding *Client": struct{ C *upicollect.Client }{c},
	}
	check := func(t *testing.T, how, out string) {
		t.Helper()
		for _, f := range forbidden {
			assert.NotContains(t, out, f, how)
		}
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"} {
				check(t, verb, fmt.Sprintf(verb, v))
			}
			check(t, "Sprint", fmt.Sprint(v))
			check(t, "Sprintln", fmt.Sprintln(v))

			b, err := json.Marshal(v)
			if err == nil {
				check(t, "json.Marshal", string(b))
			}
			b, err = xml.Marshal(v)
			if err == nil {
				check(t, "xml.Marshal", string(b))
			}

			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("v", "v", v)
			slog.New(slog.NewTextHandler(&buf, nil)).Info("v", "v", v)
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("v", slog.Any("v", v), slog.Group("g", "v", v))
			check(t, "slog", buf.String())
		})
	}

	b, err := json.Marshal(creds)
	require.NoError(t, err)
	assert.JSONEq(t, `{"MID":"MID55","PublicKey":"pk_live_3Xc","SecretKey":"[REDACTED]"}`, string(b))
	b, err = json.Marshal(embeds{Credentials: creds})
	require.NoError(t, err)
	assert.NotContains(t, string(b), secret)
	b, err = json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"base_url":"https://api.example.com","mid":"MID55"}`, string(b))
	text, err := creds.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "{MID:MID55 PublicKey:pk_live_3Xc SecretKey:[REDACTED]}", string(text))
	assert.Equal(t, `{"MID":"","PublicKey":"","SecretKey":""}`, mustJSON(t, upicollect.Credentials{}), "an empty secret says so")

	var nilClient *upicollect.Client
	assert.Equal(t, "null", mustJSON(t, nilClient))
	assert.Equal(t, "upicollect.Client(nil)", fmt.Sprint(nilClient))
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "client", nilClient, "c", c)
	assert.Contains(t, buf.String(), `"client":"upicollect.Client(nil)"`)
	assert.Contains(t, buf.String(), `"c":{"base_url":"https://api.example.com","mid":"MID55"}`)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestSecretForms: the forms of the secret to scrub from echoed text are
// the header value, its base64 pair and the secret key.
func TestSecretForms(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, "https://api.example.com")
	auth := basicAuth(testPublic, testSecret)
	f := upicollect.RedactFilter(c)
	for _, form := range []string{auth, strings.TrimPrefix(auth, "Basic "), testSecret} {
		assert.Equal(t, "x [REDACTED] y", f.Text("x "+form+" y"), form)
	}
	assert.Equal(t, "x public y", f.Text("x public y"), "nothing else")
}

// TestEchoedCredentialsInSuccess: a service or proxy that echoes the
// request's Authorization header (and its parts, JSON-escaped or not) into a
// success answer gets it into no message, no result field and no
// Response.Body; the answer still decodes.
func TestEchoedCredentialsInSuccess(t *testing.T) {
	t.Parallel()
	// A pair whose base64 holds a "/", so that its JSON-escaped form differs.
	const pub, secret = "pk_live_a", "sk_live_???>"
	creds := upicollect.Credentials{MID: testMID, PublicKey: pub, SecretKey: secret}
	auth := basicAuth(pub, secret)
	pair := strings.TrimPrefix(auth, "Basic ")
	require.Contains(t, pair, "/")
	escaped := strings.ReplaceAll(pair, "/", `\/`)
	echo := "you sent " + auth + " (" + escaped + ", " + secret + ")"
	bodies := map[string]string{
		opIntent: `{"status":true,"statusCode":200,"msg":"` + echo + `","data":{"orderId":"ORD-1","amount":"499",` +
			`"intent":"upi://pay?pa=a@b&am=499.00&tr=ORD-1&tn=` + escaped + `","phonepe":"phonepe://pay?pa=a@b&am=499.00&tr=ORD-1&k=` + pair + `","debug":"` + echo + `"}}`,
		opRequest: `{"status":true,"statusCode":200,"msg":"` + echo + `","data":{"orderId":"ORD-1",` +
			`"payment_url":"https://pay.example.com/r?k=` + escaped + `"}}`,
		opLink: `{"status":true,"statusCode":200,"msg":"` + echo + `","data":{"payment_link":"https://pay.example.com/l?k=` + pair + `"}}`,
		opStatus: `{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"` + echo + `",` +
			`"data":{"order_id":"` + testStatusOrder + `","amount":"499.00","UTR":"` + secret + `","vpa":"a@b"}}`,
	}
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		op := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		respond(w, http.StatusOK, []byte(bodies[op]))
	})
	c, err := upicollect.NewClient(creds, upicollect.WithBaseURL(srv.BaseURL()), upicollect.WithClock(newFakeClock()))
	require.NoError(t, err)
	in := validInput()
	in.OrderID = "ORD-1"
	for _, op := range allOps {
		t.Run(op, func(t *testing.T) {
			if op == opStatus {
				in.OrderID = ""
			}
			res, resp, err := in.call(context.Background(), c, op)
			require.NoError(t, err)
			require.NotNil(t, resp)
			msg := reflect.ValueOf(res).Elem().FieldByName("Message").String()
			assert.Contains(t, msg, "[REDACTED]")
			for _, text := range []string{msg, string(resp.Body), fmt.Sprintf("%+v", res), mustJSON(t, res)} {
				for _, f := range []string{auth, pair, escaped, secret} {
					assert.NotContains(t, text, f)
				}
			}
		})
	}
}

// escapeEach writes each byte of s with format.
func escapeEach(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// TestEscapedEchoesScrubbed: an answer that echoes the Authorization
// header and the secret with every character written as a JSON \uXXXX
// escape, or in an HTML page as character references (&#43; for '+', or
// every character as &#NN; or &#xHH;), over loopback HTTP, leaves them
// neither in the error's text, its Message and Response.Body, nor in the
// log, once those are decoded as JSON or HTML.
func TestEscapedEchoesScrubbed(t *testing.T) {
	t.Parallel()
	const pub, secret = "pk_live_3Xc", "sk_live_~~>?Qw7"
	creds := upicollect.Credentials{MID: testMID, PublicKey: pub, SecretKey: secret}
	auth := basicAuth(pub, secret)
	pair := strings.TrimPrefix(auth, "Basic ")
	require.Contains(t, pair, "+")
	require.Contains(t, pair, "/")
	entities := strings.NewReplacer("+", "&#43;", "/", "&#47;", "=", "&#61;")
	bodies := map[string]struct {
		status      int
		contentType string
		body        string
	}{
		"JSON, every character \\u": {400, "application/json", `{"status":false,"statusCode":400,"msg":"bad header ` +
			escapeEach(auth, `\u%04x`) + `","debug":{"secret":"` + escapeEach(secret, `\u%04X`) + `","pair":"` + escapeEach(pair, `\u%04x`) + `"}}`},
		"HTML, &#43;": {502, "text/html", "<html><body><h1>502</h1><p>Authorization: " + entities.Replace(auth) + "</p><p>" +
			entities.Replace(pair) + "</p></body></html>"},
		"HTML, every character &#NN;": {502, "text/html", "<html><body><p>" + escapeEach(auth, "&#%d;") + " " + escapeEach(secret, "&#x%x;") + "</p></body></html>"},
		"JSON holding HTML":           {400, "application/json", `{"status":false,"statusCode":400,"msg":"<p>` + entities.Replace(auth) + `</p>"}`},
	}
	for name, answer := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				w.Header().Set("Content-Type", answer.contentType)
				w.WriteHeader(answer.status)
				_, _ = io.WriteString(w, answer.body)
			})
			var logs syncBuffer
			c, err := upicollect.NewClient(creds, upicollect.WithBaseURL(srv.BaseURL()), upicollect.WithClock(newFakeClock()),
				upicollect.WithRand(fixedRand), upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}),
				upicollect.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			require.NoError(t, err)
			_, err = c.CheckPaymentStatus(context.Background(), testStatusOrder)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			require.NotNil(t, ae.Response)
			assert.Contains(t, string(ae.Response.Body), "[REDACTED]")
			for what, text := range map[string]string{
				"error": err.Error(), "message": ae.Message, "body": string(ae.Response.Body), "log": logs.String(),
			} {
				for _, decoded := range []string{text, jsonUnescape(text), html.UnescapeString(text), html.UnescapeString(jsonUnescape(text))} {
					for _, f := range []string{auth, pair, secret} {
						assert.NotContains(t, decoded, f, what)
					}
				}
			}
		})
	}
}

// jsonUnescape decodes the \uXXXX escapes of s (as JSON would in a string).
func jsonUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u' {
			if r, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(r))
				i += 5
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
