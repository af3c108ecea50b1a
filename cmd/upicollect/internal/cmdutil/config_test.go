package cmdutil

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/sandbox"
)

// writeSecret writes content at dir/name with mode, whatever the umask.
func writeSecret(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
	require.NoError(t, os.Chmod(p, mode))
	return p
}

// TestCredentialsFlagsBeatEnvironment: each flag wins over its variable,
// --secret-file over $UPICOLLECT_SECRET_KEY, and a field neither sets
// stays empty.
func TestCredentialsFlagsBeatEnvironment(t *testing.T) {
	file := writeSecret(t, t.TempDir(), "sk", "sk_from_file\n", 0o600)
	env := map[string]string{EnvMID: "env-mid", EnvPublicKey: "env-pk", EnvSecretKey: "env-sk"}
	tests := []struct {
		name  string
		env   map[string]string
		flags CredFlags
		want  upicollect.Credentials
	}{
		{"environment only", env, CredFlags{}, upicollect.Credentials{MID: "env-mid", PublicKey: "env-pk", SecretKey: "env-sk"}},
		{"flags win", env, CredFlags{MID: "flag-mid", PublicKey: "flag-pk"}, upicollect.Credentials{MID: "flag-mid", PublicKey: "flag-pk", SecretKey: "env-sk"}},
		{"secret file wins", env, CredFlags{SecretFile: file}, upicollect.Credentials{MID: "env-mid", PublicKey: "env-pk", SecretKey: "sk_from_file"}},
		{"flags without environment", nil, CredFlags{MID: "flag-mid", SecretFile: file}, upicollect.Credentials{MID: "flag-mid", SecretKey: "sk_from_file"}},
		{"nothing set", nil, CredFlags{}, upicollect.Credentials{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, errOut := testFactory(tt.env)
			got, err := f.Credentials(&tt.flags)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Empty(t, errOut.String())
		})
	}
}

// TestCredentialsSecretFileErrors: a --secret-file that cannot be read is
// a usage error naming the flag.
func TestCredentialsSecretFileErrors(t *testing.T) {
	f, _, _ := testFactory(map[string]string{EnvSecretKey: "env-sk"})
	missing := filepath.Join(t.TempDir(), "absent")
	_, err := f.Credentials(&CredFlags{SecretFile: missing})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	code, kind := Classify(context.Background(), err)
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, KindUsage, kind)
	assert.True(t, strings.HasPrefix(err.Error(), "--secret-file: open "+missing), err.Error())
}

// TestSecretKeyFlagRefused: the hidden --secret-key is refused with a
// usage error that says what to do instead, and the key it was given is
// still kept out of the output.
func TestSecretKeyFlagRefused(t *testing.T) {
	cmd := &cobra.Command{Use: "status"}
	var cf CredFlags
	AddCredFlags(cmd, &cf, "")
	require.NoError(t, cmd.ParseFlags([]string{"--secret-key", "sk_on_the_command_line", "--public-key", "pk_1"}))
	require.True(t, cmd.Flags().Lookup("secret-key").Hidden, "not in help")

	f, out, _ := testFactory(map[string]string{EnvSecretKey: "env-sk", EnvMID: "m"})
	creds, err := f.Credentials(&cf)
	require.Error(t, err)
	assert.Equal(t, upicollect.Credentials{}, creds)
	assert.Equal(t, "--secret-key is not accepted: flags show in ps and shell history; set "+EnvSecretKey+" or use --secret-file FILE", err.Error())
	code, kind := Classify(context.Background(), err)
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, KindUsage, kind)

	require.NoError(t, iostreams.WriteLine(f.IOStreams.Out, "echo sk_on_the_command_line "+basicPair("pk_1", "sk_on_the_command_line")))
	assert.Equal(t, "echo [REDACTED] [REDACTED]\n", out.String())

	_, _, err = f.Connection(&ConnFlags{CredFlags: cf, BaseURL: "http://127.0.0.1:9"})
	assert.Contains(t, err.Error(), "--secret-key is not accepted", "Connection stops at the refusal")
}

// TestAddFlags: the flags each command gets, their help naming the
// variable and the fall-back, and --dry-run only where asked.
func TestAddFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "serve"}
	var cf CredFlags
	AddCredFlags(cmd, &cf, " or sandbox")
	for name, usage := range map[string]string{
		"mid":         "merchant `ID` (default $" + EnvMID + " or sandbox)",
		"public-key":  "public `KEY` (default $" + EnvPublicKey + " or sandbox)",
		"secret-file": "read the secret key from `FILE` (default $" + EnvSecretKey + " or sandbox)",
	} {
		fl := cmd.Flags().Lookup(name)
		require.NotNil(t, fl, name)
		assert.Equal(t, usage, fl.Usage)
	}
	require.NoError(t, cmd.ParseFlags([]string{"--mid", "m1", "--public-key", "pk", "--secret-file", "/f"}))
	assert.Equal(t, CredFlags{MID: "m1", PublicKey: "pk", SecretFile: "/f"}, cf)

	for _, withDryRun := range []bool{true, false} {
		cmd := &cobra.Command{Use: "status"}
		var conn ConnFlags
		var jsonOut bool
		AddConnFlags(cmd, &conn, withDryRun)
		AddJSONFlag(cmd, &jsonOut, JSONUsage)
		assert.Equal(t, "service base `URL` (default $"+EnvBaseURL+")", cmd.Flags().Lookup("base-url").Usage)
		assert.Equal(t, "merchant `ID` (default $"+EnvMID+")", cmd.Flags().Lookup("mid").Usage)
		assert.Equal(t, JSONUsage, cmd.Flags().Lookup("json").Usage)
		args := []string{"--base-url", "http://127.0.0.1:1", "--mid", "m2", "--json"}
		if withDryRun {
			args = append(args, "--dry-run")
		} else {
			assert.Nil(t, cmd.Flags().Lookup("dry-run"))
		}
		require.NoError(t, cmd.ParseFlags(args))
		assert.Equal(t, ConnFlags{BaseURL: "http://127.0.0.1:1", CredFlags: CredFlags{MID: "m2"}, DryRun: withDryRun}, conn)
		assert.True(t, jsonOut)
	}
}

// TestReadSecretFile: the first line, trimmed, of a small file; a warning
// (escaped for the terminal) when others may read it; a file of more than
// MaxSecretFile bytes, a directory or a missing file refused.
func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	pad := func(n int) string { return "sk_pad\n" + strings.Repeat("x", n-len("sk_pad\n")) }
	tests := []struct {
		name    string
		path    string
		want    string
		warning string
		err     string
	}{
		{name: "private", path: writeSecret(t, dir, "private", "sk_1\n", 0o600), want: "sk_1"},
		{name: "first line trimmed", path: writeSecret(t, dir, "lines", "  sk_2 \r\nsecond line\n", 0o400), want: "sk_2"},
		{name: "no line break", path: writeSecret(t, dir, "bare", "sk_3", 0o600), want: "sk_3"},
		{name: "empty", path: writeSecret(t, dir, "empty", "", 0o600), want: ""},
		{
			name: "others may read", path: writeSecret(t, dir, "shared", "sk_4\n", 0o644), want: "sk_4",
			warning: "upicollect: warning: " + filepath.Join(dir, "shared") + " can be read by others (mode 0644); chmod 600 " + filepath.Join(dir, "shared") + "\n",
		},
		{
			name: "group may read", path: writeSecret(t, dir, "group", "sk_5\n", 0o640), want: "sk_5",
			warning: "upicollect: warning: " + filepath.Join(dir, "group") + " can be read by others (mode 0640); chmod 600 " + filepath.Join(dir, "group") + "\n",
		},
		{
			name: "others may write", path: writeSecret(t, dir, "writable", "sk_6\n", 0o602), want: "sk_6",
			warning: "upicollect: warning: " + filepath.Join(dir, "writable") + " can be read by others (mode 0602); chmod 600 " + filepath.Join(dir, "writable") + "\n",
		},
		{
			name: "name escaped", path: writeSecret(t, dir, "k\x1b[2J", "sk_7\n", 0o644), want: "sk_7",
			warning: "upicollect: warning: " + dir + "/k\\x1b[2J can be read by others (mode 0644); chmod 600 " + dir + "/k\\x1b[2J\n",
		},
		{name: "exactly the limit", path: writeSecret(t, dir, "limit", pad(MaxSecretFile), 0o600), want: "sk_pad"},
		{name: "over the limit", path: writeSecret(t, dir, "large", pad(MaxSecretFile+1), 0o600), err: "large is larger than 4096 bytes: not a secret key"},
		{name: "far over the limit", path: writeSecret(t, dir, "huge", pad(3*MaxSecretFile), 0o600), err: "huge is larger than 4096 bytes: not a secret key"},
		{name: "directory", path: dir, err: dir + " is not a file"},
		{name: "missing", path: filepath.Join(dir, "absent"), err: "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, out, errOut := testFactory(nil)
			got, err := f.ReadSecretFile(tt.path)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Empty(t, errOut.String(), "refused without a warning")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.warning, errOut.String())
			assert.Empty(t, out.String())
		})
	}
}

// TestConnectionMissing: every setting missing is named in one usage
// error, by its variable and flag, in a fixed order.
func TestConnectionMissing(t *testing.T) {
	const help = " (see 'upicollect help environment')"
	all := map[string]string{EnvBaseURL: "http://127.0.0.1:9", EnvMID: "m", EnvPublicKey: "pk", EnvSecretKey: "sk"}
	without := func(names ...string) map[string]string {
		env := map[string]string{}
		for k, v := range all {
			env[k] = v
		}
		for _, n := range names {
			delete(env, n)
		}
		return env
	}
	tests := []struct {
		name  string
		env   map[string]string
		flags ConnFlags
		err   string
	}{
		{"nothing", nil, ConnFlags{}, "missing " + EnvBaseURL + " or --base-url, " + EnvMID + " or --mid, " + EnvPublicKey + " or --public-key, " + EnvSecretKey + " or --secret-file" + help},
		{"base URL", without(EnvBaseURL), ConnFlags{}, "missing " + EnvBaseURL + " or --base-url" + help},
		{"MID", without(EnvMID), ConnFlags{}, "missing " + EnvMID + " or --mid" + help},
		{"public key", without(EnvPublicKey), ConnFlags{}, "missing " + EnvPublicKey + " or --public-key" + help},
		{"secret key", without(EnvSecretKey), ConnFlags{}, "missing " + EnvSecretKey + " or --secret-file" + help},
		{"flags fill in", without(EnvBaseURL, EnvMID), ConnFlags{BaseURL: "http://127.0.0.1:9", CredFlags: CredFlags{MID: "m"}}, ""},
		{"all set", all, ConnFlags{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := testFactory(tt.env)
			base, creds, err := f.Connection(&tt.flags)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				assert.Empty(t, base)
				code, kind := Classify(context.Background(), err)
				assert.Equal(t, ExitUsage, code)
				assert.Equal(t, KindUsage, kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "http://127.0.0.1:9", base)
			assert.Equal(t, upicollect.Credentials{MID: "m", PublicKey: "pk", SecretKey: "sk"}, creds)
		})
	}
}

// TestConnectionBaseURLFlag: --base-url wins over its variable, and the
// secret a connection read is kept out of everything printed.
func TestConnectionBaseURLFlag(t *testing.T) {
	f, out, errOut := testFactory(map[string]string{EnvBaseURL: "http://127.0.0.1:9", EnvMID: "m", EnvPublicKey: "pk_1", EnvSecretKey: "sk_conn_secret"})
	base, _, err := f.Connection(&ConnFlags{BaseURL: "http://127.0.0.1:10"})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:10", base)
	require.NoError(t, iostreams.WriteLine(f.IOStreams.Out, "sk_conn_secret"))
	require.NoError(t, iostreams.WriteLine(f.IOStreams.ErrOut, "Basic "+basicPair("pk_1", "sk_conn_secret")))
	assert.Equal(t, "[REDACTED]\n", out.String())
	assert.Equal(t, "[REDACTED]\n", errOut.String(), "the header value whole")
}

// TestClient: the client talks to the base URL with the CLI's User-Agent;
// under --dry-run it sends nothing; a setting the SDK refuses is a usage
// error in the command line's words.
func TestClient(t *testing.T) {
	s := sandbox.Start(t)
	f, _, _ := testFactory(sandboxEnv(s))
	c, dr, err := f.Client(&ConnFlags{})
	require.NoError(t, err)
	assert.Nil(t, dr, "no recorder without --dry-run")
	st, err := c.CheckPaymentStatus(context.Background(), "ord_client_1")
	require.NoError(t, err)
	assert.Equal(t, "ord_client_1", st.OrderID)
	reqs := s.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].Header.Get("User-Agent"), UserAgent())

	s.Clear(sandbox.RecordedRequests)
	c, dr, err = f.Client(&ConnFlags{DryRun: true})
	require.NoError(t, err)
	require.NotNil(t, dr)
	_, err = c.CheckPaymentStatus(context.Background(), "ord_client_2")
	assert.ErrorIs(t, err, ErrDryRun)
	assert.Empty(t, s.Requests(), "a dry run sends nothing")
	require.NotNil(t, dr.req, "and records the one request")
	assert.Equal(t, s.URL()+"/v1/payments/checkPaymentStatus", dr.req.URL.String())
}

func TestClientSetupErrors(t *testing.T) {
	env := map[string]string{EnvMID: "m", EnvPublicKey: "pk", EnvSecretKey: "sk"}
	tests := []struct {
		name  string
		flags ConnFlags
		err   string
	}{
		{"missing", ConnFlags{}, "missing " + EnvBaseURL + " or --base-url (see 'upicollect help environment')"},
		{"plain http", ConnFlags{BaseURL: "http://pay.example.com"}, `base URL "http://pay.example.com": https is required for a non-loopback host`},
		{"bad scheme", ConnFlags{BaseURL: "ftp://pay.example.com"}, `base URL (--base-url or ` + EnvBaseURL + `): scheme must be http or https, got "ftp"`},
		{"two problems", ConnFlags{BaseURL: "ftp://pay.example.com", CredFlags: CredFlags{MID: "m 1"}},
			`credentials: MID contains whitespace or control characters; base URL (--base-url or ` + EnvBaseURL + `): scheme must be http or https, got "ftp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := testFactory(env)
			c, dr, err := f.Client(&tt.flags)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Nil(t, dr)
			assert.Equal(t, tt.err, err.Error())
			code, kind := Classify(context.Background(), err)
			assert.Equal(t, ExitUsage, code)
			assert.Equal(t, KindUsage, kind)
		})
	}
}

// TestSetupErrorOne: an error that is not a join is reworded as one.
func TestSetupErrorOne(t *testing.T) {
	err := setupError(errors.New("upicollect: WithBaseURL: no host (WithInsecureHTTP allows http)"))
	assert.Equal(t, "base URL (--base-url or "+EnvBaseURL+"): no host", err.Error())
}
