// Package cmdutil is what every command of upicollect shares: the Factory
// (streams, configuration and the SDK client), the exit codes and error
// kinds, the shared flags and the printing of errors.
package cmdutil

import (
	"context"
	"io"

	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// Factory is what one run of the command line gives its commands: its
// streams, its context (ended by Ctrl-C or SIGTERM), its configuration
// (the environment, which flags override) and the SDK client, built when
// a command asks for it (Client). Every run builds a fresh Factory, so
// that tests may run many.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Context   context.Context
	Config    *Config
}

// New returns the Factory of a run over the given streams, with getenv as
// its whole environment.
func New(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *Factory {
	return &Factory{
		IOStreams: iostreams.New(stdin, stdout, stderr, getenv),
		Context:   ctx,
		Config:    &Config{getenv: getenv},
	}
}

// Config is a run's configuration: the environment, under the flags.
type Config struct{ getenv func(string) string }

// Get is the environment variable name.
func (c *Config) Get(name string) string { return c.getenv(name) }

// Pick is a flag's value, or the environment variable env when the flag
// is unset: flags beat the environment.
func (c *Config) Pick(flag, env string) string {
	if flag != "" {
		return flag
	}
	return c.getenv(env)
}
