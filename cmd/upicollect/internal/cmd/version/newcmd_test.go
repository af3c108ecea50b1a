package version

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
)

// TestNewCmdVersion: the flags reach the options; arguments are refused.
func TestNewCmdVersion(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    VersionOptions
		wantErr string
	}{
		{name: "no flags", args: nil, want: VersionOptions{}},
		{name: "json", args: []string{"--json"}, want: VersionOptions{JSON: true}},
		{name: "json=false", args: []string{"--json=false"}, want: VersionOptions{}},
		{name: "argument", args: []string{"now"}, wantErr: `unknown command "now" for "version"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := cmdtest.Factory(nil)
			var got *VersionOptions
			cmd := NewCmdVersion(f, func(o *VersionOptions) error { got = o; return nil })
			err := cmdtest.ExecuteIn(context.Background(), cmd, tt.args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Nil(t, got, "runF never runs")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF runs instead of versionRun")
			assert.Same(t, f.IOStreams, got.IO)
			assert.Equal(t, tt.want.JSON, got.JSON)
			assert.Empty(t, stdout.String(), "runF replaces versionRun: nothing printed")
			assert.Empty(t, stderr.String())
		})
	}
}

// TestVersionRun: the human line and the JSON document, exactly (go test
// binaries record no commit).
func TestVersionRun(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"human", nil, "upicollect " + cmdutil.Version() + " (" + runtime.Version() + " " + platform + ")\n"},
		{"json", []string{"--json"}, `{"version":"` + cmdutil.Version() + `","go_version":"` + runtime.Version() +
			`","platform":"` + platform + `"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := cmdtest.Factory(nil)
			cmd := NewCmdVersion(f, nil)
			_, err := cmdtest.Execute(t, cmd, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, stdout.String())
			assert.Empty(t, stderr.String())
			if tt.args != nil {
				var v map[string]string
				require.NoError(t, json.Unmarshal([]byte(stdout.String()), &v))
				assert.Equal(t, platform, v["platform"])
			}
		})
	}
}
