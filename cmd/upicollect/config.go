package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// Environment variables the commands read. The secret key is read from the
// environment or a file only: a flag would show in `ps` and shell history.
const (
	envBaseURL   = "UPICOLLECT_BASE_URL"
	envMID       = "UPICOLLECT_MID"
	envPublicKey = "UPICOLLECT_PUBLIC_KEY"
	envSecretKey = "UPICOLLECT_SECRET_KEY"
	envNoColor   = "NO_COLOR"
)

// connFlags are the flags of the commands that talk to the service.
type connFlags struct {
	baseURL, mid, publicKey, secretFile string
	secretKey                           string // hidden trap: refused with a clear message
	dryRun                              bool
}

// addConnFlags adds the connection flags to cmd; withDryRun adds --dry-run.
func (a *app) addConnFlags(cmd *cobra.Command, cf *connFlags, withDryRun bool) {
	f := cmd.Flags()
	f.StringVar(&cf.baseURL, "base-url", "", "service base `URL` (default $"+envBaseURL+")")
	f.StringVar(&cf.mid, "mid", "", "merchant `ID` (default $"+envMID+")")
	f.StringVar(&cf.publicKey, "public-key", "", "public `KEY` (default $"+envPublicKey+")")
	f.StringVar(&cf.secretFile, "secret-file", "", "read the secret key from `FILE` (default $"+envSecretKey+")")
	f.StringVar(&cf.secretKey, "secret-key", "", "")
	_ = f.MarkHidden("secret-key")
	f.BoolVar(&a.json, "json", false, "print one JSON document (errors too) on stdout")
	if withDryRun {
		f.BoolVar(&cf.dryRun, "dry-run", false, "print the request that would be sent (Authorization masked) and send nothing")
	}
}

// credentials resolves the base URL and credentials, flags over
// environment, and registers the secret so that it is never printed.
func (a *app) credentials(cf *connFlags) (string, upicollect.Credentials, error) {
	if cf.secretKey != "" {
		a.secrets.add(cf.secretKey)
		return "", upicollect.Credentials{}, usageError(errors.New(
			"--secret-key is not accepted: flags show in ps and shell history; set " +
				envSecretKey + " or use --secret-file FILE"))
	}
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return a.getenv(env)
	}
	base := pick(cf.baseURL, envBaseURL)
	creds := upicollect.Credentials{MID: pick(cf.mid, envMID), PublicKey: pick(cf.publicKey, envPublicKey)}
	if cf.secretFile != "" {
		b, err := os.ReadFile(cf.secretFile)
		if err != nil {
			return "", creds, usageError(fmt.Errorf("--secret-file: %w", err))
		}
		creds.SecretKey = strings.TrimSpace(string(b))
	} else {
		creds.SecretKey = a.getenv(envSecretKey)
	}
	a.secrets.addCredentials(creds)
	var missing []string
	for _, m := range []struct{ val, name string }{
		{base, envBaseURL + " or --base-url"},
		{creds.MID, envMID + " or --mid"},
		{creds.PublicKey, envPublicKey + " or --public-key"},
		{creds.SecretKey, envSecretKey + " or --secret-file"},
	} {
		if m.val == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return "", creds, usageError(fmt.Errorf("missing %s (see 'upicollect help environment')", strings.Join(missing, ", ")))
	}
	return base, creds, nil
}

// client builds the SDK client for a command. With --dry-run its transport
// records the first request and sends nothing; the returned recorder holds
// it.
func (a *app) client(cf *connFlags) (*upicollect.Client, *dryRun, error) {
	base, creds, err := a.credentials(cf)
	if err != nil {
		return nil, nil, err
	}
	opts := []upicollect.Option{
		upicollect.WithBaseURL(base),
		upicollect.WithUserAgent("upicollect-cli/" + cliVersion()),
	}
	var dr *dryRun
	if cf.dryRun {
		dr = &dryRun{}
		opts = append(opts,
			upicollect.WithHTTPClient(&http.Client{Transport: dr}),
			upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	}
	c, err := upicollect.NewClient(creds, opts...)
	if err != nil {
		return nil, nil, usageError(err)
	}
	return c, dr, nil
}
