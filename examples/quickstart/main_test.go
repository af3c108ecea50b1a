package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQuickstartAgainstSandbox(t *testing.T) {
	var out bytes.Buffer
	noEnv := func(string) string { return "" }
	require.NoError(t, run(context.Background(), &out, noEnv))
	text := out.String()
	require.Contains(t, text, "against the embedded sandbox")
	require.Contains(t, text, "upi://pay?")
	require.Regexp(t, regexp.MustCompile(`(?m)^SUCCESS  order ord_[a-z2-7]{26}  amount 499\.00 INR  UTR \d{12}$`), text)
}

func TestQuickstartNeedsCredentialsWithBaseURL(t *testing.T) {
	getenv := func(k string) string {
		if k == "UPICOLLECT_BASE_URL" {
			return "https://api.example.com"
		}
		return ""
	}
	err := run(context.Background(), &bytes.Buffer{}, getenv)
	require.ErrorContains(t, err, "UPICOLLECT_MID")
}
