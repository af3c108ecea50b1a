package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/sandbox"
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

// TestQuickstartAgainstSeparateSandbox runs the quickstart as a user would
// against `upicollect sandbox`: configured by the environment, it prints the
// hosted page, where the payer (here the test) pays.
func TestQuickstartAgainstSeparateSandbox(t *testing.T) {
	sb := sandbox.Start(t)
	c := sb.Credentials()
	t.Setenv("UPICOLLECT_BASE_URL", sb.URL())
	t.Setenv("UPICOLLECT_MID", c.MID)
	t.Setenv("UPICOLLECT_PUBLIC_KEY", c.PublicKey)
	t.Setenv("UPICOLLECT_SECRET_KEY", c.SecretKey)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, outW, os.Getenv)
		outW.Close()
	}()
	var text strings.Builder
	sc := bufio.NewScanner(outR)
	pagePrefix := sb.URL() + "/sandbox/pay/"
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		text.WriteString(line + "\n")
		if id, ok := strings.CutPrefix(line, pagePrefix); ok {
			res, err := sb.HTTPClient().PostForm(sb.URL()+"/sandbox/orders/"+id+"/pay", url.Values{"result": {"SUCCESS"}})
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, 200, res.StatusCode)
		}
	}
	require.NoError(t, <-done, text.String())
	require.Contains(t, text.String(), "or play the payer on the sandbox's hosted page")
	require.Regexp(t, `(?m)^SUCCESS  order ord_`, text.String())
}
