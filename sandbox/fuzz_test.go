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
