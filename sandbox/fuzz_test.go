package sandbox

import (
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

// FuzzDecodeFault does the same for the JSON of POST /sandbox/faults.
func FuzzDecodeFault(f *testing.F) {
	f.Add(`{"op":"checkPaymentStatus","status":429,"header":{"Retry-After":"2"},"times":-1}`)
	f.Add(`{"reset":"before"}`)
	f.Add(`{"latency":"2s","slow_body":"1s","huge_body":5}`)
	f.Fuzz(func(t *testing.T, body string) {
		fault, err := decodeFault([]byte(body))
		if err != nil {
			return
		}
		if err := fault.check(); err != nil {
			t.Fatalf("decodeFault(%q) accepted a fault that check refuses: %v", body, err)
		}
	})
}
