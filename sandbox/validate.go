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
	"sort"
	"strings"
	"unicode"
)

// API operation names, as Fault.Op and RecordedRequest.Op use them.
const (
	OpCreatePaymentIntent  = "createPaymentIntent"
	OpCreatePaymentRequest = "createPaymentRequest"
	OpCreatePaymentLink    = "createPaymentLink"
	OpCheckPaymentStatus   = "checkPaymentStatus"
)

// opFields lists the fields each operation accepts, in the order they are
// checked (the document's table order), and which are required. Anything else
// is refused: a strict sandbox catches a client that sends what it should not.
var opFields = map[string][]fieldRule{
	OpCreatePaymentIntent: {
		{"mid", true}, {"amount", true}, {"order_id", false}, {"redirect_url", true},
		{"note", true}, {"customer_name", true}, {"customer_email", true}, {"customer_mobile", true},
	},
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
	amountRE = regexp.MustCompile(`^[1-9][0-9]{0,5}$`)
	vpaRE    = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+$`)
	emailRE  = regexp.MustCompile(`^[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$`)
	mobileRE = regexp.MustCompile(`^[0-9]{10}$`)
)

// maxOrderIDLen bounds merchant order ids; ids go into paths and links.
const maxOrderIDLen = 100

// checkField returns the problem with one present field, or "".
func checkField(name, v string) string {
	switch name {
	case "mid":
		if v == "" {
			return "mid is required"
		}
	case "amount":
		if !amountRE.MatchString(v) || len(v) == 6 && v != "100000" {
			return "amount must be a whole number of rupees from 1 to 100000"
		}
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
		if !mobileRE.MatchString(v) {
			return "customer_mobile must be a 10-digit mobile number"
		}
	}
	return ""
}

func badIDRune(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// validate checks fields against op's rules and returns the first problem in
// a stable order: unknown fields (by name), then the table order.
func validate(op string, fields map[string]string) string {
	rules := opFields[op]
	var unknown []string
	for k := range fields {
		known := false
		for _, r := range rules {
			known = known || r.name == k
		}
		if !known {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Sprintf("%s is not accepted by %s", unknown[0], op)
	}
	for _, r := range rules {
		v, ok := fields[r.name]
		if !ok {
			if r.required {
				return r.name + " is required"
			}
			continue
		}
		if p := checkField(r.name, v); p != "" {
			return p
		}
	}
	return ""
}

// errUnsupportedType marks a body in a Content-Type the sandbox does not read.
var errUnsupportedType = errors.New("Content-Type must be application/x-www-form-urlencoded, multipart/form-data or application/json")

// parseFields reads a form-encoded, multipart or JSON body into single-valued
// fields. A field given twice is an error: which one would win is unclear.
func parseFields(contentType string, body []byte) (map[string]string, error) {
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "" && len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '{':
		return parseJSONFields(body)
	case mt == "application/x-www-form-urlencoded" || mt == "":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, errors.New("body is not valid form encoding")
		}
		return single(vals)
	case mt == "multipart/form-data":
		return parseMultipart(body, params["boundary"])
	}
	return nil, errUnsupportedType
}

func single(vals map[string][]string) (map[string]string, error) {
	out := make(map[string]string, len(vals))
	for k, vs := range vals {
		if len(vs) != 1 {
			return nil, fmt.Errorf("%s must be given once", k)
		}
		out[k] = vs[0]
	}
	return out, nil
}

// parseJSONFields reads a flat JSON object of strings and numbers (the PHP
// clients send amount as either). Numbers are kept as written.
func parseJSONFields(body []byte) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("body must be a JSON object")
	}
	out := make(map[string]string)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errors.New("body is not valid JSON")
		}
		key := t.(string) // inside an object, Token returns keys as strings
		t, err = dec.Token()
		if err != nil {
			return nil, errors.New("body is not valid JSON")
		}
		var v string
		switch t := t.(type) {
		case string:
			v = t
		case json.Number:
			v = t.String()
		default:
			return nil, fmt.Errorf("%s must be a string or a number", key)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s must be given once", key)
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("body must hold one JSON object")
	}
	return out, nil
}

// parseMultipart reads what PHP's curl sends for an array body.
func parseMultipart(body []byte, boundary string) (map[string]string, error) {
	if boundary == "" {
		return nil, errors.New("multipart body without boundary")
	}
	form, err := multipart.NewReader(bytes.NewReader(body), boundary).ReadForm(int64(len(body)) + 1024)
	if err != nil {
		return nil, errors.New("body is not valid multipart/form-data")
	}
	defer func() { _ = form.RemoveAll() }()
	for k := range form.File {
		return nil, fmt.Errorf("%s must not be a file", k)
	}
	return single(form.Value)
}
