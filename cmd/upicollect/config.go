package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
)

// Environment variables the commands read: the SDK's names (auth.go), so
// that the CLI and CredentialsFromEnv read the same. Flags win over them.
// The secret key is read from the environment or a file only: a flag would
// show in `ps` and shell history.
const (
	envBaseURL   = upicollect.EnvBaseURL
	envMID       = upicollect.EnvMID
	envPublicKey = upicollect.EnvPublicKey
	envSecretKey = upicollect.EnvSecretKey
	envNoColor   = "NO_COLOR"
)

// maxSecretFile bounds what --secret-file reads: a key is a few dozen
// bytes, and a file named by mistake must not be read whole.
const maxSecretFile = 4 << 10

// credFlags are the flags that name the merchant and its keys.
type credFlags struct {
	mid, publicKey, secretFile string
	secretKey                  string // hidden trap: refused with a clear message
}

// addCredFlags adds the credential flags to cmd; defaults says what an
// unset flag and variable fall back to ("" for nothing).
func addCredFlags(cmd *cobra.Command, cf *credFlags, defaults string) {
	f := cmd.Flags()
	f.StringVar(&cf.mid, "mid", "", "merchant `ID` (default $"+envMID+defaults+")")
	f.StringVar(&cf.publicKey, "public-key", "", "public `KEY` (default $"+envPublicKey+defaults+")")
	f.StringVar(&cf.secretFile, "secret-file", "", "read the secret key from `FILE` (default $"+envSecretKey+defaults+")")
	f.StringVar(&cf.secretKey, "secret-key", "", "")
	_ = f.MarkHidden("secret-key")
}

// credentials resolves the credentials, flags over environment. A field
// neither sets stays empty.
func (a *app) credentials(cf *credFlags) (upicollect.Credentials, error) {
	if cf.secretKey != "" {
		a.secrets.set(upicollect.Credentials{PublicKey: a.pick(cf.publicKey, envPublicKey), SecretKey: cf.secretKey})
		return upicollect.Credentials{}, usageError(errors.New(
			"--secret-key is not accepted: flags show in ps and shell history; set " +
				envSecretKey + " or use --secret-file FILE"))
	}
	creds := upicollect.Credentials{MID: a.pick(cf.mid, envMID), PublicKey: a.pick(cf.publicKey, envPublicKey)}
	if cf.secretFile == "" {
		creds.SecretKey = a.getenv(envSecretKey)
	} else {
		sk, err := a.readSecretFile(cf.secretFile)
		if err != nil {
			return creds, usageError(fmt.Errorf("--secret-file: %w", err))
		}
		creds.SecretKey = sk
	}
	return creds, nil
}

// pick is a flag's value, or the environment variable env when the flag is
// unset.
func (a *app) pick(flag, env string) string {
	if flag != "" {
		return flag
	}
	return a.getenv(env)
}

// readSecretFile reads the secret key from path: its first line, at most
// maxSecretFile bytes. It warns on stderr when others may read the file.
func (a *app) readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeNamedPipe == 0 {
		return "", fmt.Errorf("%s is not a file", path) // a directory or a device
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		fmt.Fprintf(a.stderr, "upicollect: warning: %s can be read by others (mode %04o); chmod 600 %s\n",
			terminalSafe(path), perm, terminalSafe(path))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s is larger than %d bytes: not a secret key", path, maxSecretFile)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}

// connFlags are the flags of the commands that talk to the service.
type connFlags struct {
	credFlags
	baseURL string
	dryRun  bool
}

// addConnFlags adds the connection flags to cmd; withDryRun adds --dry-run.
func (a *app) addConnFlags(cmd *cobra.Command, cf *connFlags, withDryRun bool) {
	f := cmd.Flags()
	f.StringVar(&cf.baseURL, "base-url", "", "service base `URL` (default $"+envBaseURL+")")
	addCredFlags(cmd, &cf.credFlags, "")
	f.BoolVar(&a.json, "json", false, "print one JSON document (errors too) on stdout")
	if withDryRun {
		f.BoolVar(&cf.dryRun, "dry-run", false, "print the request that would be sent (Authorization masked) and send nothing")
	}
}

// connection resolves the base URL and credentials of a command that talks
// to the service, registers the secret so that it is never printed, and
// fails when one is missing.
func (a *app) connection(cf *connFlags) (string, upicollect.Credentials, error) {
	creds, err := a.credentials(&cf.credFlags)
	if err != nil {
		return "", creds, err
	}
	a.secrets.set(creds)
	base := a.pick(cf.baseURL, envBaseURL)
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
	base, creds, err := a.connection(cf)
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
		return nil, nil, usageError(setupError(err))
	}
	return c, dr, nil
}

// setupError rewords NewClient's error for the command line: the base URL
// comes from --base-url or $UPICOLLECT_BASE_URL, and the SDK's options
// (WithBaseURL, WithInsecureHTTP) are nothing a CLI user can pass.
func setupError(err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		m := strings.TrimPrefix(e.Error(), "upicollect: ")
		m = strings.Replace(m, "WithBaseURL: ", "base URL (--base-url or "+envBaseURL+"): ", 1)
		m = strings.Replace(m, " (WithInsecureHTTP allows http)", "", 1)
		msgs = append(msgs, m)
	}
	return errors.New(strings.Join(msgs, "; "))
}
