package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// object is a JSON object whose keys are written in the given order, so that
// answers match the document key for key and golden files stay stable.
type object []member

type member struct {
	key string
	val any
}

// number is a JSON number written verbatim (built from int64 paise, never
// from a float).
type number string

// encodeJSON writes v without HTML escaping: links carry '&' and should read
// as they are. It supports the few value types the answers use.
func encodeJSON(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case object:
		buf.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeJSON(buf, m.key)
			buf.WriteByte(':')
			encodeJSON(buf, m.val)
		}
		buf.WriteByte('}')
	case number:
		buf.WriteString(string(v))
	case int:
		buf.WriteString(strconv.Itoa(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case string:
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)           // a string always encodes
		buf.Truncate(buf.Len() - 1) // Encode appends a newline
	default:
		panic("sandbox: encodeJSON: unsupported type")
	}
}

// writeJSON answers httpStatus with body.
func writeJSON(w http.ResponseWriter, httpStatus int, body object) {
	var buf bytes.Buffer
	encodeJSON(&buf, body)
	buf.WriteByte('\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(httpStatus)
	_, _ = w.Write(buf.Bytes())
}

// writeAPI answers an API call: as writeJSON, but with HTTP 200 for a
// failure under the failures-http-200 variant.
func (s *Service) writeAPI(w http.ResponseWriter, httpStatus int, body object) {
	if httpStatus >= 300 && s.variantSet().has(VariantFailuresHTTP200) {
		httpStatus = http.StatusOK
	}
	writeJSON(w, httpStatus, body)
}

// statusCode renders the body's statusCode as the variants ask.
func statusCode(v variantSet, code int) any {
	if v.has(VariantStringStatusCode) {
		return strconv.Itoa(code)
	}
	return code
}

// failure is the {status:false, statusCode, msg} envelope of every error
// except a missing Authorization header.
func failure(v variantSet, code int, msg string) object {
	return object{{"status", false}, {"statusCode", statusCode(v, code)}, {"msg", msg}}
}

// success is the {status:true, statusCode:200, msg, data} envelope.
func success(v variantSet, msg string, data object) object {
	return object{{"status", true}, {"statusCode", statusCode(v, 200)}, {"msg", msg}, {"data", data}}
}

// missingAuth is the one answer with "message" and no statusCode, always in
// the document's shape.
func missingAuth() object {
	return object{{"status", false}, {"message", "Authorization header is required"}}
}
