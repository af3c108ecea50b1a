// Package rawhttp replays recorded HTTP requests byte for byte over a raw
// TCP connection, as clients with HTTP code of their own (PHP's curl,
// WordPress over HTTP/1.0) send them: tests use it to prove that what the
// vendor's plugins put on the wire gets the live service's answers.
//
// A recording is the request line, the headers, a blank line and the body,
// with LF line ends (CRLF is written on the wire) and {{NAME}} placeholders
// for what each run fills in (host, merchant id, Authorization).
// Content-Length is computed, never recorded.
//
// It is a test kit (internal/testkit): only tests import it.
package rawhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// maxBody bounds the answer body Exchange reads.
const maxBody = 1 << 20

// split returns a recording's head (request line and headers) and body,
// the body without the recording's final line end. The head ends at the
// first blank line, recorded as LF or as CRLF: a head holding a blank line
// would end the message early on the wire.
func split(recording []byte) (head, body []byte, err error) {
	for i := 0; ; {
		end := bytes.IndexByte(recording[i:], '\n')
		if end < 0 {
			break
		}
		if line := recording[i : i+end]; len(line) == 0 || string(line) == "\r" {
			head = recording[:max(i-1, 0)] // without the last header's '\n'
			if len(bytes.TrimSpace(head)) == 0 {
				break
			}
			return head, bytes.TrimSuffix(recording[i+end+1:], []byte("\n")), nil
		}
		i += end + 1
	}
	return nil, nil, errors.New("rawhttp: a recording needs a request line, headers and a blank line")
}

// Body returns the body of a recording, as recorded.
func Body(recording []byte) ([]byte, error) {
	_, body, err := split(recording)
	return body, err
}

// Message returns the request a recording holds as it goes on the wire:
// each {{NAME}} replaced by fill[NAME], CRLF line ends, and a
// Content-Length header for the body. A placeholder left unfilled is an
// error, as is a recorded Content-Length.
func Message(recording []byte, fill map[string]string) ([]byte, error) {
	pairs := make([]string, 0, 2*len(fill))
	for k, v := range fill {
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	text := strings.NewReplacer(pairs...).Replace(string(recording))
	if i := strings.Index(text, "{{"); i >= 0 && strings.Contains(text[i:], "}}") {
		end := min(len(text), i+40)
		return nil, fmt.Errorf("rawhttp: unfilled placeholder at %q", text[i:end])
	}
	head, body, err := split([]byte(text))
	if err != nil {
		return nil, err
	}
	var msg bytes.Buffer
	for _, line := range strings.Split(string(head), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			return nil, errors.New("rawhttp: a recording must not hold Content-Length; it is computed")
		}
		msg.WriteString(strings.TrimSuffix(line, "\r") + "\r\n")
	}
	fmt.Fprintf(&msg, "Content-Length: %d\r\n\r\n", len(body))
	msg.Write(body)
	return msg.Bytes(), nil
}

// Exchange writes msg to addr on a new connection and reads one answer;
// it ends when ctx does. The body read is capped at 1 MiB.
func Exchange(ctx context.Context, addr string, msg []byte) (*http.Response, []byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if _, err := conn.Write(msg); err != nil {
		return nil, nil, errors.Join(err, ctx.Err())
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, nil, errors.Join(err, ctx.Err())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, errors.Join(err, ctx.Err())
	}
	return resp, body, nil
}
