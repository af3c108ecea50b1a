package rawhttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMessage(t *testing.T) {
	tests := []struct {
		name, recording string
		fill            map[string]string
		want, err       string
	}{
		{"filled", "POST /x HTTP/1.0\nHost: {{HOST}}\n\n{\"a\":\"https:\\/\\/b\"}\n", map[string]string{"HOST": "h:1"},
			"POST /x HTTP/1.0\r\nHost: h:1\r\nContent-Length: 19\r\n\r\n{\"a\":\"https:\\/\\/b\"}", ""},
		{"no body", "GET / HTTP/1.1\nHost: h\n\n", nil, "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", ""},
		{"CRLF recorded", "GET / HTTP/1.1\r\nHost: h\r\n\n", nil, "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", ""},
		{"unfilled", "GET / HTTP/1.1\nAuthorization: {{AUTH}}\n\n", nil, "", "unfilled placeholder"},
		{"unfilled first", "{{METHOD}} / HTTP/1.1\n\n", nil, "", "unfilled placeholder at \"{{METHOD}}"},
		{"CRLF blank line", "GET / HTTP/1.1\r\nHost: h\r\n\r\nabc\n", nil, "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc", ""},
		{"CRLF blank line then LF", "0\n\r\n\n", nil, "0\r\nContent-Length: 0\r\n\r\n", ""},
		{"no blank line", "GET / HTTP/1.1\nHost: h\n", nil, "", "blank line"},
		{"empty head", "\n\nbody", nil, "", "request line"},
		{"recorded length", "POST / HTTP/1.1\ncontent-length: 3\n\nabc", nil, "", "Content-Length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Message([]byte(tt.recording), tt.fill)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	body, err := Body([]byte("POST / HTTP/1.1\n\n{\"x\":1}\n"))
	require.NoError(t, err)
	assert.Equal(t, `{"x":1}`, string(body))
}

func TestExchange(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Proto", r.Proto)
		_, _ = w.Write(append([]byte("got "), b...))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	msg, err := Message([]byte("POST / HTTP/1.0\nHost: {{HOST}}\n\nhello\n"), map[string]string{"HOST": addr})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, body, err := Exchange(ctx, addr, msg)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "HTTP/1.0", resp.Header.Get("X-Proto"))
	assert.Equal(t, "got hello", string(body))

	// A server that never answers: the wait ends with the context.
	ln := httptest.NewUnstartedServer(nil).Listener
	defer ln.Close()
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	_, _, err = Exchange(short, ln.Addr().String(), msg)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// FuzzMessage: any recording either is refused or becomes a message whose
// head ends in a Content-Length that matches what follows it.
func FuzzMessage(f *testing.F) {
	f.Add("POST /x HTTP/1.0\nHost: {{HOST}}\n\n{\"a\":1}\n")
	f.Add("GET / HTTP/1.1\r\n\n")
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, rec string) {
		msg, err := Message([]byte(rec), map[string]string{"HOST": "h"})
		if err != nil {
			return
		}
		head, body, ok := strings.Cut(string(msg), "\r\n\r\n")
		if !ok {
			t.Fatalf("Message(%q) = %q: no end of head", rec, msg)
		}
		lines := strings.Split(head, "\r\n")
		if want := "Content-Length: " + strconv.Itoa(len(body)); lines[len(lines)-1] != want {
			t.Fatalf("Message(%q): last header %q, want %q", rec, lines[len(lines)-1], want)
		}
	})
}
