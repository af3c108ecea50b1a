package upicollect

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
)

// TestReadBody: readBody returns the whole body up to the cap, and one byte
// more when the body is longer, however the reader splits it and whatever
// length the answer announced.
func TestReadBody(t *testing.T) {
	t.Parallel()
	errRead := errors.New("connection reset")
	tests := []struct {
		name    string
		r       io.Reader
		length  int64
		want    string
		wantErr error
	}{
		{name: "known length", r: strings.NewReader("abc"), length: 3, want: "abc"},
		{name: "unknown length", r: strings.NewReader("abc"), length: -1, want: "abc"},
		{name: "empty", r: strings.NewReader(""), length: 0, want: ""},
		{name: "at the cap, a byte at a time", r: iotest.OneByteReader(strings.NewReader("abcde")), length: -1, want: "abcde"},
		{name: "over the cap, a byte at a time", r: iotest.OneByteReader(strings.NewReader("abcdefgh")), length: -1, want: "abcdef"},
		{name: "over the cap, length understated", r: strings.NewReader("abcdefgh"), length: 3, want: "abcdef"},
		{name: "over the cap, length overstated", r: strings.NewReader("abcdefgh"), length: 1 << 40, want: "abcdef"},
		{name: "read error keeps what came", r: io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(errRead)), length: -1, want: "ab", wantErr: errRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readBody(tt.r, tt.length, 5)
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.wantErr, err)
		})
	}
}

// TestReadBodyKnownLengthAllocatesOnce: an announced length sizes the
// buffer once, as readBody's comment says.
func TestReadBodyKnownLengthAllocatesOnce(t *testing.T) {
	body := strings.Repeat("x", 4096)
	var r strings.Reader
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset(body)
		if b, err := readBody(&r, int64(len(body)), maxBodyBytes); err != nil || len(b) != len(body) {
			t.Fatalf("readBody: %d bytes, %v", len(b), err)
		}
	})
	assert.Equal(t, 1.0, allocs)
}
