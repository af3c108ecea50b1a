package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseFields feeds arbitrary bodies to the body readers and the
// validator: they must never panic, and a body they accept must hold each
// field once and validate deterministically.
func FuzzParseFields(f *testing.F) {
	types := []string{"application/x-www-form-urlencoded", "application/json", "", "multipart/form-data; boundary=b", "text/plain"}
	f.Add(uint8(0), "mid=M&amount=499&note=n")
	f.Add(uint8(1), `{"mid":"M","amount":499.5,"x":null}`)
	f.Add(uint8(2), `{"a":[1,2]}`)
	f.Add(uint8(3), "--b\r\nContent-Disposition: form-data; name=\"mid\"\r\n\r\nM\r\n--b--\r\n")
	f.Add(uint8(4), "x")
	f.Fuzz(func(t *testing.T, ti uint8, body string) {
		fields, err := parseFields(types[int(ti)%len(types)], []byte(body))
		if err != nil {
			return
		}
		for op := range opFields {
			for _, rl := range []rules{{}, {strict: true}, {fractional: true}} {
				first := validate(op, fields, rl)
				if again := validate(op, fields, rl); again != first {
					t.Fatalf("validate(%s, %+v): %q then %q", op, rl, first, again)
				}
			}
		}
	})
}

// FuzzParseFault feeds arbitrary --fault specs to ParseFault: it must not
// panic, and what it accepts must be a fault that can apply.
func FuzzParseFault(f *testing.F) {
	f.Add("op=createPaymentIntent,status=500,times=2,processed")
	f.Add("latency=1s,header=Retry-After:2,body={\"a\":1,\"b\":2}")
	f.Add("reset=after")
	f.Add("huge_body=10,slow-body=2ms")
	f.Fuzz(func(t *testing.T, spec string) {
		fault, err := ParseFault(spec)
		if err != nil {
			return
		}
		if err := fault.check(); err != nil {
			t.Fatalf("ParseFault(%q) accepted a fault that check refuses: %v", spec, err)
		}
	})
}

// FuzzFaultJSON does the same for the JSON of POST /sandbox/faults.
func FuzzFaultJSON(f *testing.F) {
	f.Add(`{"op":"checkPaymentStatus","status":429,"header":{"Retry-After":"2"},"times":-1}`)
	f.Add(`{"reset":"before"}`)
	f.Add(`{"latency":"2s","slow_body":"1s","huge_body":5}`)
	f.Fuzz(func(t *testing.T, body string) {
		var fault Fault
		if err := json.Unmarshal([]byte(body), &fault); err != nil {
			return
		}
		if err := fault.check(); err != nil {
			t.Fatalf("Fault.UnmarshalJSON(%q) accepted a fault that check refuses: %v", body, err)
		}
	})
}

// FuzzTypedPhone feeds arbitrary phone numbers to the hosted checkout's
// rule: one it accepts is digits and separators only, with at most a
// leading '+', and its digits are 10, or 10 after a leading 0 or 91.
func FuzzTypedPhone(f *testing.F) {
	for _, s := range []string{"+91 98765 43210", "098765-43210", "+91.9876543210", "(98765) 43210", "9876543210", "+44 7911 123456", "٩٨٧٦٥٤٣٢١٠"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if checkTypedPhone(v) != "" {
			return
		}
		var digits []byte
		for i, r := range v {
			switch {
			case r >= '0' && r <= '9':
				digits = append(digits, byte(r))
			case r == '+' && len(digits) == 0 && i == strings.IndexRune(v, '+'):
			case strings.ContainsRune(" -.()", r):
			default:
				t.Fatalf("checkTypedPhone(%q) accepted %q", v, r)
			}
		}
		d := string(digits)
		ok := len(d) == 10 || len(d) == 11 && d[0] == '0' || len(d) == 12 && strings.HasPrefix(d, "91") ||
			len(d) == 13 && strings.HasPrefix(d, "091")
		if !ok {
			t.Fatalf("checkTypedPhone(%q) accepted digits %s", v, d)
		}
	})
}
