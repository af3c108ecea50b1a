package upicollect

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/internal/redact"
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

// TestTryTimedOut: an attempt ended by its own timeout says so, whether the
// answer never came or its body stalled; one whose caller's context ended
// does not.
func TestTryTimedOut(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select { // until the client gives up, or the test ends
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	tr := newTransport(&http.Client{}, false, http.Header{}, 50*time.Millisecond, redact.New("pk", "sk"))
	for _, path := range []string{"/head", "/body"} {
		u, err := url.Parse(srv.URL + path)
		require.NoError(t, err)
		a := tr.try(context.Background(), u, "a=1", nil)
		assert.Error(t, a.err, path)
		assert.True(t, a.timedOut, "%s: the attempt's own timeout", path)
		assert.Equal(t, path == "/body", a.resp != nil, "%s: an answer's head arrived", path)

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		a = tr.try(ctx, u, "a=1", nil)
		assert.Error(t, a.err, path)
		assert.False(t, a.timedOut, "%s: the caller's context ended, not the attempt's timeout", path)
	}
}

// TestTryRedirectDetail: every 3xx, 300 and 399 included, is a redirect not
// followed, named by its host; a 400 with a body that is not the envelope
// is said so.
func TestTryRedirectDetail(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			code = http.StatusTeapot
		}
		w.Header().Set("Location", "https://elsewhere.example/pay")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "<html>moved</html>")
	}))
	t.Cleanup(srv.Close)
	tr := newTransport(&http.Client{}, false, http.Header{}, time.Minute, redact.New("pk", "sk"))
	for code, want := range map[int]string{
		300: `redirect to host "elsewhere.example" not followed: check the base URL`,
		399: `redirect to host "elsewhere.example" not followed: check the base URL`,
		400: "body is not a JSON object",
		299: "body is not a JSON object",
	} {
		u, err := url.Parse(srv.URL + "/" + strconv.Itoa(code))
		require.NoError(t, err)
		a := tr.try(context.Background(), u, "a=1", nil)
		require.NoError(t, a.err, "%d", code)
		assert.Equal(t, want, a.unreadable, "%d", code)
		assert.Nil(t, a.env, "%d", code)
	}
}
