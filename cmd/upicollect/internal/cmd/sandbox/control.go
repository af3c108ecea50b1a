package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// control is what the commands that drive a running sandbox over its
// control endpoints (advance, pay) share: their streams, context and
// configuration, and their flags.
type control struct {
	IO     *iostreams.IOStreams
	Ctx    context.Context
	Config *cmdutil.Config

	BaseURL string
	JSON    bool
}

// addControlFlags adds --base-url and --json to a sandbox control command.
func addControlFlags(cmd *cobra.Command, cf *control) {
	f := cmd.Flags()
	f.StringVar(&cf.BaseURL, "base-url", "", "the sandbox's base `URL` (default $"+cmdutil.EnvBaseURL+", else http://"+defaultSandboxAddr+")")
	cmdutil.AddJSONFlag(cmd, &cf.JSON, cmdutil.JSONUsage)
}

// base is the base URL of the sandbox a control command talks to.
func (cf *control) base() (string, error) {
	base := cf.Config.Pick(cf.BaseURL, cmdutil.EnvBaseURL)
	if base == "" {
		base = "http://" + defaultSandboxAddr
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", cmdutil.UsageError(fmt.Errorf("base URL (--base-url or %s) %q is not an absolute http or https URL", cmdutil.EnvBaseURL, base))
	}
	return strings.TrimSuffix(base, "/"), nil
}

// controlTimeout bounds one call to a sandbox's control endpoint: it
// answers at once, so a sandbox that does not is not there.
const controlTimeout = 30 * time.Second

// controlClient talks to a sandbox on loopback: never through a proxy,
// never following a redirect.
var controlClient = &http.Client{
	Transport:     &http.Transport{Proxy: nil, DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// maxControlAnswer bounds what a control call reads of an answer.
const maxControlAnswer = 1 << 20

// call sends a control request to base+path and returns the body of
// a 2xx answer. It sends neither Origin nor Sec-Fetch-Site, as any client
// that is not a browser, so the sandbox's cross-site guard lets it pass.
// A refusal is an error carrying the sandbox's own words and exit code 3.
func (cf *control) call(base, path, contentType string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(cf.Ctx, controlTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, cmdutil.UsageError(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", cmdutil.UserAgent())
	resp, err := controlClient.Do(req)
	if err != nil {
		if cf.Ctx.Err() != nil {
			return nil, cmdutil.Interrupted(cf.Ctx, err)
		}
		return nil, &cmdutil.ExitError{Code: cmdutil.ExitFailure, Kind: cmdutil.KindTransport,
			Err: fmt.Errorf("no sandbox answered at %s (is `upicollect sandbox` running?): %w", base, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxControlAnswer))
	if err != nil {
		return nil, &cmdutil.ExitError{Code: cmdutil.ExitFailure, Kind: cmdutil.KindTransport, Err: fmt.Errorf("reading the sandbox's answer: %w", err)}
	}
	if resp.StatusCode/100 == 2 {
		return b, nil
	}
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	kind := cmdutil.KindRefused
	if resp.StatusCode == http.StatusNotFound {
		kind = cmdutil.KindNotFound
	}
	return nil, &cmdutil.ExitError{Code: cmdutil.ExitRefused, Kind: kind,
		Err: fmt.Errorf("the sandbox refused (HTTP %d): %s", resp.StatusCode, strings.TrimPrefix(msg, "sandbox: "))}
}
