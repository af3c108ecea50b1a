package cmdutil

import (
	"time"

	upicollect "github.com/upicollect/upicollect-go"
)

// Version is this build's version: the SDK's, which is the one version
// of the project (the User-Agent and the changelog say the same).
func Version() string { return upicollect.Version }

// UserAgent is the product the command line adds to the SDK's User-Agent.
func UserAgent() string { return "upicollect-cli/" + Version() }

// Rupees formats m for humans: "₹499.00"; "" for zero.
func Rupees(m upicollect.Money) string {
	if m == 0 {
		return ""
	}
	return "₹" + m.String()
}

// OptAmount is m as the JSON amount: "499.00", or null when the answer had none.
func OptAmount(m upicollect.Money) *string {
	if m == 0 {
		return nil
	}
	s := m.String()
	return &s
}

// OptTime is t in RFC 3339, or null when zero.
func OptTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

// Deref is *s, or "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// IndiaTime is t for a person, in India time as the sandbox's pages and
// the dashboard show it: "2026-11-26 10:00:00 IST"; "" for the zero time.
func IndiaTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(upicollect.IndiaTime).Format("2006-01-02 15:04:05 MST")
}
