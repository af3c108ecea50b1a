package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// API operation names, as Fault.Op, RecordedRequest.Op and Stats use
// them: the names the SDK uses too. They are written out, not taken from
// the SDK's shared vocabulary, so that their values show here; a test
// holds them equal to it.
const (
	OpCreatePaymentIntent  = "createPaymentIntent"
	OpCreatePaymentRequest = "createPaymentRequest"
	OpCreatePaymentLink    = "createPaymentLink"
	OpCheckPaymentStatus   = "checkPaymentStatus"
	// OpCreateOrderRequest is the hosted checkout, documented by the
	// vendor beyond the interface document.
	OpCreateOrderRequest = "createOrderRequest"
)

// intentFields are what createPaymentIntent and createOrderRequest take.
var intentFields = []fieldRule{
	{"mid", true}, {"amount", true}, {"order_id", false}, {"redirect_url", true},
	{"note", true}, {"customer_name", true}, {"customer_email", true}, {"customer_mobile", true},
}

// opFields lists the fields each operation accepts, in the order they are
// checked (the document's table order), and which are required. Anything else
// is ignored, or refused under Strict.
var opFields = map[string][]fieldRule{
	OpCreatePaymentIntent: intentFields,
	OpCreateOrderRequest:  intentFields,
	OpCreatePaymentRequest: {
		{"mid", true}, {"amount", true}, {"order_id", false}, {"vpa", true},
		{"note", true}, {"customer_name", true}, {"customer_email", true}, {"customer_mobile", true},
	},
	OpCreatePaymentLink: {
		{"mid", true}, {"amount", true},
		{"note", true}, {"customer_name", true}, {"customer_email", true}, {"customer_mobile", true},
	},
	OpCheckPaymentStatus: {{"mid", true}, {"order_id", true}},
}

type fieldRule struct {
	name     string
	required bool
}

var (
	vpaRE    = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+$`)
	emailRE  = regexp.MustCompile(`^[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$`)
	mobileRE = regexp.MustCompile(`^[0-9]{10}$`)
)

// maxOrderIDLen bounds merchant order ids; ids go into paths and links.
const maxOrderIDLen = 100

// checkAmount reads an amount in rupees as the live service takes it:
// "499", "123.00", 123.0, exactly (no float). A fraction of a rupee is
// refused unless fractional.
func checkAmount(v string, fractional bool) (int64, string) {
	p, ok := parseRupees(v)
	switch {
	case !ok || p < 100 || p > maxOrderPaise:
		return 0, "amount must be a number of rupees from 1 to 100000"
	case p%100 != 0 && !fractional:
		return 0, "amount must be a whole number of rupees"
	}
	return p, ""
}

// checkField returns the problem with one present field of op, or "".
func checkField(op, name, v string, fractional bool) string {
	switch name {
	case "mid":
		if v == "" {
			return "mid is required"
		}
	case "amount":
		_, p := checkAmount(v, fractional)
		return p
	case "order_id":
		if v == "" || len(v) > maxOrderIDLen || strings.IndexFunc(v, badIDRune) >= 0 {
			return fmt.Sprintf("order_id must be 1 to %d characters without spaces or control characters", maxOrderIDLen)
		}
	case "redirect_url":
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "redirect_url must be an absolute http or https URL"
		}
	case "vpa":
		if !vpaRE.MatchString(v) {
			return "vpa must look like <handle>@<bank_handle>"
		}
	case "note", "customer_name":
		if strings.TrimSpace(v) == "" {
			return name + " must not be empty"
		}
	case "customer_email":
		if !emailRE.MatchString(v) {
			return "customer_email must be a valid e-mail address"
		}
	case "customer_mobile":
		if op == OpCreateOrderRequest {
			return checkTypedPhone(v)
		}
		if !mobileRE.MatchString(v) {
			return "customer_mobile must be a 10-digit mobile number"
		}
	}
	return ""
}

// checkTypedPhone accepts a mobile number as a shopper types it into a
// checkout form, which the vendor's plugins send on unchanged and live
// accepts: "+91 98765 43210", "098765-43210", WHMCS's "+91.9876543210",
// "(98765) 43210". Spaces, hyphens, dots and parentheses are separators;
// what is left is an optional "+", then 10 digits after a leading 0 or 91.
func checkTypedPhone(v string) string {
	const problem = "customer_mobile must be a mobile number: 10 digits, optionally after +91, 91 or 0"
	d := strings.TrimPrefix(strings.Map(func(r rune) rune {
		if strings.ContainsRune(" -.()", r) {
			return -1
		}
		return r
	}, v), "+")
	if len(d) > 10 {
		d = strings.TrimPrefix(d, "0")
	}
	if len(d) > 10 {
		d = strings.TrimPrefix(d, "91")
	}
	if !mobileRE.MatchString(d) {
		return problem
	}
	return ""
}

func badIDRune(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// rules says how validate judges a body.
type rules struct {
	strict     bool // refuse unknown fields and nulls
	fractional bool // accept amounts to the paisa
}

// validate checks f against op's fields and returns the first problem in a
// stable order: (strict only) unknown fields and nulls by name, then the
// document's table order. Without strict, unknown fields are ignored and a
// null is an absent field.
func validate(op string, f form, rl rules) string {
	known := opFields[op]
	isKnown := func(k string) bool {
		return slices.ContainsFunc(known, func(r fieldRule) bool { return r.name == k })
	}
	if rl.strict {
		if p := strictProblem(op, f, isKnown); p != "" {
			return p
		}
	}
	for _, k := range f.odd {
		if isKnown(k) {
			return k + " must be a string or a number"
		}
	}
	for _, r := range known {
		v, ok := f.vals[r.name]
		if !ok {
			if r.required {
				return r.name + " is required"
			}
			continue
		}
		if p := checkField(op, r.name, v, rl.fractional); p != "" {
			return p
		}
	}
	return ""
}

// strictProblem names the first unknown field or null, or returns "".
func strictProblem(op string, f form, isKnown func(string) bool) string {
	var unknown []string
	for k := range f.vals {
		if !isKnown(k) {
			unknown = append(unknown, k)
		}
	}
	for _, k := range slices.Concat(f.odd, f.nulls) {
		if !isKnown(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Sprintf("%s is not accepted by %s", unknown[0], op)
	}
	if len(f.nulls) > 0 {
		n := slices.Clone(f.nulls)
		sort.Strings(n)
		return n[0] + " must not be null"
	}
	return ""
}

// form is a request body read into single-valued fields.
type form struct {
	vals  map[string]string // strings, and JSON numbers as written
	nulls []string          // JSON fields sent as null (absent from vals)
	odd   []string          // JSON fields sent as booleans, arrays or objects
}

// errUnsupportedType marks a body in a Content-Type the sandbox does not read.
var errUnsupportedType = errors.New("Content-Type must be application/x-www-form-urlencoded, multipart/form-data or application/json")

// parseFields reads a form-encoded, multipart or JSON body. A field given
// twice is an error: which one would win is unclear. Content-Type
// parameters such as charset=utf-8 are accepted; bodies are UTF-8.
func parseFields(contentType string, body []byte) (form, error) {
	mt, params, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "" && len(trimmed) > 0 && trimmed[0] == '{':
		return parseJSONFields(body)
	case mt == "application/x-www-form-urlencoded" || mt == "":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return form{}, errors.New("body is not valid form encoding")
		}
		return single(vals)
	case mt == "multipart/form-data":
		return parseMultipart(body, params["boundary"])
	}
	return form{}, errUnsupportedType
}

func single(vals map[string][]string) (form, error) {
	out := make(map[string]string, len(vals))
	for k, vs := range vals {
		if len(vs) != 1 {
			return form{}, fmt.Errorf("%s must be given once", k)
		}
		out[k] = vs[0]
	}
	return form{vals: out}, nil
}

// parseJSONFields reads a flat JSON object. Strings are unescaped ("\/"
// included), numbers kept as written, nulls and other values noted.
func parseJSONFields(body []byte) (form, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return form{}, errors.New("body must be a JSON object")
	}
	f := form{vals: map[string]string{}}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return form{}, errors.New("body is not valid JSON")
		}
		key := t.(string) // inside an object, Token returns keys as strings
		var v any
		if err := dec.Decode(&v); err != nil {
			return form{}, errors.New("body is not valid JSON")
		}
		if seen[key] {
			return form{}, fmt.Errorf("%s must be given once", key)
		}
		seen[key] = true
		switch v := v.(type) {
		case string:
			f.vals[key] = v
		case json.Number:
			f.vals[key] = v.String()
		case nil:
			f.nulls = append(f.nulls, key)
		default:
			f.odd = append(f.odd, key)
		}
	}
	if _, err := dec.Token(); err != nil {
		return form{}, errors.New("body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return form{}, errors.New("body must hold one JSON object")
	}
	return f, nil
}

// parseMultipart reads what PHP's curl sends for an array body.
func parseMultipart(body []byte, boundary string) (form, error) {
	if boundary == "" {
		return form{}, errors.New("multipart body without boundary")
	}
	mf, err := multipart.NewReader(bytes.NewReader(body), boundary).ReadForm(int64(len(body)) + 1024)
	if err != nil {
		return form{}, errors.New("body is not valid multipart/form-data")
	}
	defer func() { _ = mf.RemoveAll() }()
	for k := range mf.File {
		return form{}, fmt.Errorf("%s must not be a file", k)
	}
	return single(mf.Value)
}
