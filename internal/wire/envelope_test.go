package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeEnvelope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    *Envelope
		wantErr string
		notEnv  bool // the error is ErrNotEnvelope
	}{
		{name: "success", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"a":1}}`,
			want: &Envelope{Status: true, StatusCode: 200, HasStatusCode: true, Msg: "ok", Data: json.RawMessage(`{"a":1}`)}},
		{name: "status check pending", body: `{"status":false,"statusCode":200,"txnStatus":"PENDING","msg":"Transaction not found"}`,
			want: &Envelope{StatusCode: 200, HasStatusCode: true, Msg: "Transaction not found", TxnStatus: "PENDING"}},
		{name: "missing auth uses message", body: `{"status":false,"message":"Authorization header is required"}`,
			want: &Envelope{Msg: "Authorization header is required", MessageKey: true}},
		{name: "msg wins over message", body: `{"status":false,"msg":"a","message":"b"}`,
			want: &Envelope{Msg: "a"}},
		{name: "empty msg falls back to message", body: `{"status":false,"msg":"","message":"b"}`,
			want: &Envelope{Msg: "b", MessageKey: true}},
		{name: "string statusCode", body: `{"status":true,"statusCode":" 409 "}`,
			want: &Envelope{Status: true, StatusCode: 409, HasStatusCode: true}},
		{name: "unreadable statusCode", body: `{"status":false,"statusCode":"abc"}`,
			want: &Envelope{HasStatusCode: true}},
		{name: "float statusCode", body: `{"status":false,"statusCode":200.5}`,
			want: &Envelope{HasStatusCode: true}},
		{name: "null statusCode is absent", body: `{"status":false,"statusCode":null}`,
			want: &Envelope{}},
		{name: "string status", body: `{"status":"true"}`, want: &Envelope{Status: true}},
		{name: "string status false", body: `{"status":" FALSE "}`, want: &Envelope{}},
		{name: "null data is absent", body: `{"status":true,"data":null}`, want: &Envelope{Status: true}},
		{name: "whitespace around", body: " \n\t{\"status\":true , \"data\" : { } }\n", want: &Envelope{Status: true, Data: json.RawMessage(`{ }`)}},
		{name: "non-string msg ignored", body: `{"status":false,"msg":42,"txnStatus":7}`, want: &Envelope{}},

		{name: "empty", body: ``, wantErr: "empty body"},
		{name: "blank", body: " \r\n ", wantErr: "empty body"},
		{name: "html", body: `<html>502</html>`, wantErr: "body is not a JSON object"},
		{name: "array", body: `[{"status":true}]`, wantErr: "body is not a JSON object"},
		{name: "null", body: `null`, wantErr: "body is not a JSON object"},
		{name: "string", body: `"ok"`, wantErr: "body is not a JSON object"},
		{name: "truncated", body: `{"status":true,"msg":"x`, wantErr: "body is not valid JSON"},
		{name: "trailing garbage", body: `{"status":true}x`, wantErr: "body is not valid JSON"},
		{name: "no status", body: `{"error":"Bad Request"}`, wantErr: `no "status" key`, notEnv: true},
		{name: "numeric status", body: `{"status":1}`, wantErr: `"status" is not a boolean`, notEnv: true},
		{name: "null status", body: `{"status":null}`, wantErr: `"status" is not a boolean`, notEnv: true},
		{name: "word status", body: `{"status":"ok"}`, wantErr: `"status" is not a boolean`, notEnv: true},
		{name: "data not an object", body: `{"status":true,"data":"x"}`, wantErr: `"data" is not an object`, notEnv: true},
		{name: "data an array", body: `{"status":true,"data":[]}`, wantErr: `"data" is not an object`, notEnv: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, err := DecodeEnvelope([]byte(tt.body))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, env)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Equal(t, tt.notEnv, errors.Is(err, ErrNotEnvelope))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, env)
		})
	}
}

func TestReadString(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]struct {
		s  string
		ok bool
	}{
		`"a"`:        {"a", true},
		`""`:         {"", true},
		`"\u00e9\n"`: {"é\n", true},
		`null`:       {"", false},
		` null `:     {"", false},
		`1`:          {"", false},
		`true`:       {"", false},
		`{}`:         {"", false},
	} {
		s, ok := ReadString(json.RawMessage(raw))
		assert.Equal(t, want.s, s, raw)
		assert.Equal(t, want.ok, ok, raw)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`"412345678901"`: "412345678901",
		`412345678901`:   "412345678901",
		` -12.5 `:        "-12.5",
		`null`:           "",
		`true`:           "",
		`{}`:             "",
		`[]`:             "",
		``:               "",
	} {
		assert.Equal(t, want, Text(json.RawMessage(raw)), raw)
	}
}
