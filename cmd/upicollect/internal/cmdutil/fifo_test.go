//go:build unix

package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadSecretFileFIFO: a named pipe (a shell's <(...)) is read as a file
// is.
func TestReadSecretFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	written := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0) // waits for the reader
		if err == nil {
			_, err = w.WriteString("sk_piped\nrest\n")
			err = errors.Join(err, w.Close())
		}
		written <- err
	}()
	f, _, errOut := testFactory(nil)
	got, err := f.ReadSecretFile(p)
	require.NoError(t, err)
	require.NoError(t, <-written)
	assert.Equal(t, "sk_piped", got)
	assert.Empty(t, errOut.String())
}
