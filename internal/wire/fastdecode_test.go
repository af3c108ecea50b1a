package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedBodies are the recorded answers: this package's fuzz corpus and the
// SDK's response fixtures.
func seedBodies(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	for _, dir := range []string{filepath.Join("testdata", "fuzz"), filepath.Join("..", "..", "testdata", "responses")} {
		entries, err := os.ReadDir(dir)
		require.NoError(tb, err)
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(tb, err)
			out[filepath.Join(dir, e.Name())] = b
		}
	}
	require.NotEmpty(tb, out)
	return out
}

// requireSameEnvelope fails unless the fast decoder, when it says ok, gives
// what the general decoder gives.
func requireSameEnvelope(t *testing.T, body []byte) (ok bool) {
	t.Helper()
	fast, ok := decodeEnvelopeFast(body)
	if !ok {
		require.Nil(t, fast, "an envelope with !ok")
		return false
	}
	trimmed := bytes.Trim(body, jsonSpace)
	require.NotEmpty(t, trimmed, "fast decoder accepted an empty body")
	want, err := decodeEnvelopeGeneral(trimmed)
	require.NoError(t, err, "fast decoder accepted %q, the general decoder refuses it", body)
	require.Equal(t, want.Status, fast.Status, "Status of %q", body)
	require.Equal(t, want.StatusCode, fast.StatusCode, "StatusCode of %q", body)
	require.Equal(t, want.HasStatusCode, fast.HasStatusCode, "HasStatusCode of %q", body)
	require.Equal(t, want.Msg, fast.Msg, "Msg of %q", body)
	require.Equal(t, want.MessageKey, fast.MessageKey, "MessageKey of %q", body)
	require.Equal(t, want.TxnStatus, fast.TxnStatus, "TxnStatus of %q", body)
	require.Equal(t, want.Data == nil, fast.Data == nil, "Data presence of %q", body)
	require.Equal(t, string(want.Data), string(fast.Data), "Data of %q", body)
	require.Equal(t, want.DataTwins, fast.DataTwins, "DataTwins of %q", body)
	return true
}

// TestFastDecodeRecordedAnswers: every recorded body that DecodeEnvelope
// accepts is decoded on the fast path, the same way.
func TestFastDecodeRecordedAnswers(t *testing.T) {
	t.Parallel()
	accepted, fast := 0, 0
	for name, body := range seedBodies(t) {
		_, err := DecodeEnvelope(body)
		ok := requireSameEnvelope(t, body)
		if err == nil {
			accepted++
			assert.True(t, ok, "%s fell back", name)
		}
		if ok {
			fast++
		}
	}
	assert.Equal(t, accepted, fast)
	assert.Greater(t, fast, 20)
}

func TestFastDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		wantOK bool
	}{
		{"spec success", `{"status":true,"statusCode":200,"txnStatus":"SUCCESS","msg":"ok","data":{"amount":499,"UTR":"1"}}`, true},
		{"spaces everywhere", " \n{ \"status\" : false ,\t\"msg\" : \"x\" , \"data\" : { \"a\" : [1, {\"b\":\"}\"}] } }\r\n", true},
		{"null data and code", `{"status":true,"statusCode":null,"data":null}`, true},
		{"message only", `{"status":false,"message":"Authorization header is required"}`, true},
		{"msg empty then message", `{"status":false,"msg":"","message":"b"}`, true},
		{"msg not a string", `{"status":false,"msg":5,"message":"b"}`, true},
		{"message null", `{"status":false,"message":null}`, true},
		{"string code", `{"status":true,"statusCode":"200"}`, true},
		{"negative code", `{"status":true,"statusCode":-5}`, true},
		{"18-digit code", `{"status":true,"statusCode":123456789012345678}`, true},
		{"fraction code", `{"status":true,"statusCode":2.5}`, true},
		{"exponent code", `{"status":true,"statusCode":2e2}`, true},
		{"boolean code", `{"status":true,"statusCode":true}`, true},
		{"unknown txn kept", `{"status":true,"txnStatus":"Settled"}`, true},
		{"unicode msg", `{"status":true,"msg":"भुगतान सफल"}`, true},
		{"other keys skipped", `{"x":{"status":false},"status":true,"y":["data"]}`, true},

		{"string status", `{"status":"true"}`, false},
		{"null status", `{"status":null}`, false},
		{"no status", `{"msg":"x"}`, false},
		{"repeated key", `{"status":true,"status":false}`, false},
		{"escaped key", `{"st\u0061tus":true}`, false},
		{"escaped msg", `{"status":true,"msg":"a\"b"}`, false},
		{"invalid utf-8 msg", "{\"status\":true,\"msg\":\"\xff\"}", false},
		{"data not object", `{"status":true,"data":[1]}`, false},
		{"code with sign in string", `{"status":true,"statusCode":"+200"}`, false},
		{"huge code", `{"status":true,"statusCode":123456789012345678901}`, false},
		{"not JSON", `{"status":true`, false},
		{"array", `[{"status":true}]`, false},
		{"null", `null`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.wantOK, requireSameEnvelope(t, []byte(tt.body)))
		})
	}
}

func TestFastDecodeInternsKnownStates(t *testing.T) {
	if raceEnabled() {
		// The race detector makes sync.Pool drop items at random, and
		// json.Valid pools its scanner: the count is not exact there.
		t.Skip("allocation counts vary under -race")
	}
	body := []byte(`{"status":true,"txnStatus":"SUCCESS","data":{"amount":1}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := decodeEnvelopeFast(body); !ok {
			panic("not ok")
		}
	})
	assert.Equal(t, 1.0, allocs, "only the Envelope itself")
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// FuzzFastDecodeMatches: whenever the fast decoder says ok, the general
// decoder accepts the body and gives the same Envelope.
func FuzzFastDecodeMatches(f *testing.F) {
	for _, body := range seedBodies(f) {
		f.Add(body)
	}
	f.Add([]byte(`{"status":true,"statusCode":"200","msg":"ok","data":{}}`))
	f.Add([]byte(`{"status":false,"statusCode":-0.5e1,"message":"","txnStatus":null}`))
	f.Add([]byte(`{"status":true,"DATA":{"c":3},"data":{"a":1},"Data":{"b":2},"dAtA":null}`))
	f.Add([]byte(`{"status":true,"data":{"a":1},"data":{"b":2},"D\u0061ta":{"c":3}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		requireSameEnvelope(t, body)
	})
}

func BenchmarkEnvelopeDecoders(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "responses", "status_success_spec.json"))
	require.NoError(b, err)
	b.Run("DecodeEnvelope", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			if _, err := DecodeEnvelope(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeEnvelopeFast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			if _, ok := decodeEnvelopeFast(body); !ok {
				b.Fatal("not ok")
			}
		}
	})
}
