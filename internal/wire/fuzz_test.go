package wire_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// FuzzDecodeEnvelope: DecodeEnvelope never panics, and what it accepts is a
// JSON object with a boolean "status" whose fields it reports faithfully.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"status":true,"statusCode":"200","msg":"ok","data":{}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := wire.DecodeEnvelope(body)
		if err != nil {
			if env != nil {
				t.Fatal("an envelope with an error")
			}
			return
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
			t.Fatalf("accepted a body that is not a JSON object: %v", err)
		}
		if _, ok := raw["status"]; !ok {
			t.Fatal(`accepted a body without "status"`)
		}
		if !env.HasStatusCode && env.StatusCode != 0 {
			t.Fatalf("StatusCode %d without a statusCode key", env.StatusCode)
		}
		if _, ok := raw["statusCode"]; env.HasStatusCode && !ok {
			t.Fatal("HasStatusCode without a statusCode key")
		}
		if _, ok := raw["message"]; env.MessageKey && !ok {
			t.Fatal("MessageKey without a message key")
		}
		if env.Data != nil {
			d := bytes.TrimSpace(env.Data)
			if !json.Valid(d) || d[0] != '{' {
				t.Fatalf("Data %q is not a JSON object", env.Data)
			}
		}
		again, err := wire.DecodeEnvelope(body)
		if err != nil || again.Status != env.Status || again.Msg != env.Msg || again.StatusCode != env.StatusCode ||
			again.TxnStatus != env.TxnStatus || !bytes.Equal(again.Data, env.Data) {
			t.Fatal("decoding is not deterministic")
		}
	})
}

// FuzzParseAmount: ParseAmount never panics; an amount it accepts is the
// exact value of the decimal it read, and formatting it with Money.String
// and parsing that again gives the same paise.
func FuzzParseAmount(f *testing.F) {
	f.Add([]byte(`1.08`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		paise, err := wire.ParseAmount(raw)
		if err != nil {
			return
		}
		if paise > 1<<53 || paise < -(1<<53) {
			t.Fatalf("%q: %d paise is out of range", raw, paise)
		}
		// The decimal text ParseAmount read: a JSON string's value or the raw text.
		text := string(raw)
		var s string
		if strings.TrimSpace(text) != "null" && json.Unmarshal(raw, &s) == nil {
			text = s
		}
		text = strings.TrimSpace(text)
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			t.Fatalf("%q: accepted %q, which is not a decimal", raw, text)
		}
		if want := new(big.Rat).Mul(r, big.NewRat(100, 1)); want.Cmp(big.NewRat(paise, 1)) != 0 {
			t.Fatalf("%q: got %d paise, want %s", raw, paise, want.RatString())
		}
		str := upicollect.Money(paise).String()
		for _, form := range []string{str, `"` + str + `"`} {
			back, err := wire.ParseAmount(json.RawMessage(form))
			if err != nil || back != paise {
				t.Fatalf("%q: %d paise formats as %s, which parses as %d (%v)", raw, paise, form, back, err)
			}
		}
	})
}
