package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// Environment variables the commands read: the SDK's names (auth.go), so
// that the CLI and CredentialsFromEnv read the same. Flags win over them.
// The secret key is read from the environment or a file only: a flag would
// show in `ps` and shell history.
const (
	EnvBaseURL   = upicollect.EnvBaseURL
	EnvMID       = upicollect.EnvMID
	EnvPublicKey = upicollect.EnvPublicKey
	EnvSecretKey = upicollect.EnvSecretKey
)

// MaxSecretFile bounds what --secret-file reads: a key is a few dozen
// bytes, and a file named by mistake must not be read whole.
const MaxSecretFile = 4 << 10

// CredFlags are the flags that name the merchant and its keys.
type CredFlags struct {
	MID, PublicKey, SecretFile string
	secretKey                  string // hidden trap: refused with a clear message
}

// AddCredFlags adds the credential flags to cmd; defaults says what an
// unset flag and variable fall back to ("" for nothing).
func AddCredFlags(cmd *cobra.Command, cf *CredFlags, defaults string) {
	f := cmd.Flags()
	f.StringVar(&cf.MID, "mid", "", "merchant `ID` (default $"+EnvMID+defaults+")")
	f.StringVar(&cf.PublicKey, "public-key", "", "public `KEY` (default $"+EnvPublicKey+defaults+")")
	f.StringVar(&cf.SecretFile, "secret-file", "", "read the secret key from `FILE` (default $"+EnvSecretKey+defaults+")")
	f.StringVar(&cf.secretKey, "secret-key", "", "")
	_ = f.MarkHidden("secret-key")
}

// Credentials resolves the credentials, flags over environment, and makes
// the secret one the run never prints. A field neither sets stays empty.
func (f *Factory) Credentials(cf *CredFlags) (upicollect.Credentials, error) {
	if cf.secretKey != "" {
		f.IOStreams.Secrets().Set(upicollect.Credentials{PublicKey: f.Config.Pick(cf.PublicKey, EnvPublicKey), SecretKey: cf.secretKey})
		return upicollect.Credentials{}, UsageError(errors.New(
			"--secret-key is not accepted: flags show in ps and shell history; set " +
				EnvSecretKey + " or use --secret-file FILE"))
	}
	creds := upicollect.Credentials{MID: f.Config.Pick(cf.MID, EnvMID), PublicKey: f.Config.Pick(cf.PublicKey, EnvPublicKey)}
	if cf.SecretFile == "" {
		creds.SecretKey = f.Config.Get(EnvSecretKey)
	} else {
		sk, err := f.ReadSecretFile(cf.SecretFile)
		if err != nil {
			return creds, UsageError(fmt.Errorf("--secret-file: %w", err))
		}
		creds.SecretKey = sk
	}
	return creds, nil
}

// ReadSecretFile reads a secret from path: its first line, at most
// MaxSecretFile bytes. It warns on stderr when others may read the file.
func (f *Factory) ReadSecretFile(path string) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeNamedPipe == 0 {
		return "", fmt.Errorf("%s is not a file", path) // a directory or a device
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		fmt.Fprintf(f.IOStreams.ErrOut, "upicollect: warning: %s can be read by others (mode %04o); chmod 600 %s\n",
			iostreams.TerminalSafe(path), perm, iostreams.TerminalSafe(path))
	}
	b, err := io.ReadAll(io.LimitReader(file, MaxSecretFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxSecretFile {
		return "", fmt.Errorf("%s is larger than %d bytes: not a secret key", path, MaxSecretFile)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line), nil
}

// ConnFlags are the flags of the commands that talk to the service.
type ConnFlags struct {
	CredFlags
	BaseURL string
	DryRun  bool
}

// AddConnFlags adds the connection flags to cmd; withDryRun adds --dry-run.
func AddConnFlags(cmd *cobra.Command, cf *ConnFlags, withDryRun bool) {
	f := cmd.Flags()
	f.StringVar(&cf.BaseURL, "base-url", "", "service base `URL` (default $"+EnvBaseURL+")")
	AddCredFlags(cmd, &cf.CredFlags, "")
	if withDryRun {
		f.BoolVar(&cf.DryRun, "dry-run", false, "print the request that would be sent (Authorization masked) and send nothing")
	}
}

// AddJSONFlag binds cmd's own --json to *json.
func AddJSONFlag(cmd *cobra.Command, json *bool, usage string) {
	cmd.Flags().BoolVar(json, "json", false, usage)
}

// JSONUsage is the help of --json on a command that prints one document.
const JSONUsage = "print one JSON document (errors too) on stdout"

// Connection resolves the base URL and credentials of a command that talks
// to the service, registers the secret so that it is never printed, and
// fails when one is missing.
func (f *Factory) Connection(cf *ConnFlags) (string, upicollect.Credentials, error) {
	creds, err := f.Credentials(&cf.CredFlags)
	if err != nil {
		return "", creds, err
	}
	f.IOStreams.Secrets().Set(creds)
	base := f.Config.Pick(cf.BaseURL, EnvBaseURL)
	var missing []string
	for _, m := range []struct{ val, name string }{
		{base, EnvBaseURL + " or --base-url"},
		{creds.MID, EnvMID + " or --mid"},
		{creds.PublicKey, EnvPublicKey + " or --public-key"},
		{creds.SecretKey, EnvSecretKey + " or --secret-file"},
	} {
		if m.val == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return "", creds, UsageError(fmt.Errorf("missing %s (see 'upicollect help environment')", strings.Join(missing, ", ")))
	}
	return base, creds, nil
}

// Client builds the SDK client for a command, when the command asks for
// it: after its flags were checked. With --dry-run its transport records
// the first request and sends nothing; the returned recorder holds it.
func (f *Factory) Client(cf *ConnFlags) (*upicollect.Client, *DryRun, error) {
	base, creds, err := f.Connection(cf)
	if err != nil {
		return nil, nil, err
	}
	opts := []upicollect.Option{
		upicollect.WithBaseURL(base),
		upicollect.WithUserAgent(UserAgent()),
	}
	var dr *DryRun
	if cf.DryRun {
		dr = &DryRun{}
		opts = append(opts,
			upicollect.WithHTTPClient(&http.Client{Transport: dr}),
			upicollect.WithRetryPolicy(upicollect.RetryPolicy{MaxAttempts: 1}))
	}
	c, err := upicollect.NewClient(creds, opts...)
	if err != nil {
		return nil, nil, UsageError(setupError(err))
	}
	return c, dr, nil
}

// setupError rewords NewClient's error for the command line: the base URL
// comes from --base-url or $UPICOLLECT_BASE_URL, and the SDK's options
// (WithBaseURL, WithInsecureHTTP) are nothing a CLI user can pass. It
// works on the text because NewClient's errors have no type to read the
// option from (errors.Join of plain errors).
func setupError(err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		m := strings.TrimPrefix(e.Error(), "upicollect: ")
		m = strings.Replace(m, "WithBaseURL: ", "base URL (--base-url or "+EnvBaseURL+"): ", 1)
		m = strings.Replace(m, " (WithInsecureHTTP allows http)", "", 1)
		msgs = append(msgs, m)
	}
	return errors.New(strings.Join(msgs, "; "))
}
