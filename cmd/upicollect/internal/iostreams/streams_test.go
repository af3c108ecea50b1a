package iostreams

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// TestSyncBuffer: writers on many goroutines and a reader at the same time
// (the race detector watches), and every byte written is kept.
func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	assert.Equal(t, "", b.String(), "the zero SyncBuffer is empty")
	const writers, lines = 8, 100
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < lines; i++ {
				n, err := b.Write([]byte("line\n"))
				assert.NoError(t, err)
				assert.Equal(t, 5, n)
				_ = b.String() // a reader while others write
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("line\n", writers*lines), b.String())
}

// TestNew: the streams write through to what they were given, share one
// filter of secrets, read the terminal-ness of each stream, and start on
// the real clock.
func TestNew(t *testing.T) {
	var out, errOut bytes.Buffer
	ios := New(strings.NewReader("in"), &out, &errOut, func(string) string { return "" })
	assert.False(t, ios.StdoutTTY, "a buffer is no terminal")
	assert.False(t, ios.StderrTTY)
	require.NotNil(t, ios.Now)
	assert.False(t, ios.Now().IsZero())
	assert.Nil(t, ios.Secrets().Current(), "nothing to hide before credentials are read")

	ios.Secrets().Set(upicollect.Credentials{MID: "m", PublicKey: "pk_1", SecretKey: "sk_test_secret"})
	assert.NotNil(t, ios.Secrets().Current())
	require.NoError(t, WriteLine(ios.Out, "out sk_test_secret"))
	require.NoError(t, WriteLine(ios.ErrOut, "err sk_test_secret"))
	assert.Equal(t, "out [REDACTED]\n", out.String())
	assert.Equal(t, "err [REDACTED]\n", errOut.String())
	in, err := bytes.NewBuffer(nil).ReadFrom(ios.In)
	require.NoError(t, err)
	assert.Equal(t, int64(2), in, "In is read as given")

	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer devNull.Close()
	ios = New(strings.NewReader(""), devNull, &errOut, func(string) string { return "" })
	assert.True(t, ios.StdoutTTY, "a character device counts as a terminal")
	assert.False(t, ios.StderrTTY)
	ios = New(strings.NewReader(""), &out, devNull, func(string) string { return "" })
	assert.False(t, ios.StdoutTTY)
	assert.True(t, ios.StderrTTY)
}

func TestColorEnabled(t *testing.T) {
	for _, tt := range []struct {
		noColor string
		want    bool
	}{
		{"", true},
		{"1", false},
		{"0", false}, // any value, https://no-color.org
	} {
		ios := New(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string {
			if k == "NO_COLOR" {
				return tt.noColor
			}
			return "xterm"
		})
		assert.Equal(t, tt.want, ios.ColorEnabled(), "NO_COLOR=%q", tt.noColor)
	}
}

// TestIOStreamsCanDraw: the method reads the stream's StderrTTY and the
// run's TERM.
func TestIOStreamsCanDraw(t *testing.T) {
	term := "xterm"
	ios := New(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string {
		if k == "TERM" {
			return term
		}
		return ""
	})
	assert.False(t, ios.CanDraw(false), "stderr is a buffer")
	ios.StderrTTY = true
	assert.True(t, ios.CanDraw(false))
	assert.False(t, ios.CanDraw(true), "never into --json output")
	term = "dumb"
	assert.False(t, ios.CanDraw(false))
}

// TestIsTerminalDevices: a character device is taken for a terminal; a
// file whose mode cannot be read is not one.
func TestIsTerminalDevices(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	assert.True(t, IsTerminal(devNull), os.DevNull+" is a character device")
	require.NoError(t, devNull.Close())
	assert.False(t, IsTerminal(devNull), "a closed file cannot be asked")
}

func TestPrintJSON(t *testing.T) {
	var out bytes.Buffer
	ios := New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
	require.NoError(t, ios.PrintJSON(map[string]string{"url": "https://p.example/?a=1&b=<2>"}))
	assert.Equal(t, `{"url":"https://p.example/?a=1&b=<2>"}`+"\n", out.String(), "one line, HTML characters as they are")

	out.Reset()
	assert.Error(t, ios.PrintJSON(make(chan int)), "what JSON cannot encode")
	assert.Empty(t, out.String(), "nothing half-written")

	ios = New(strings.NewReader(""), failWriter{}, &bytes.Buffer{}, func(string) string { return "" })
	assert.ErrorIs(t, ios.PrintJSON(1), io.ErrClosedPipe)
}

func TestPrintFields(t *testing.T) {
	var out bytes.Buffer
	ios := New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
	require.NoError(t, ios.PrintFields(
		Field{Name: "Order", Value: "ORD-1"},
		Field{Name: "UTR", Value: ""},
		Field{Name: "Message", Value: "paid\x1b[2J"},
	))
	assert.Equal(t, "Order    ORD-1\nMessage  paid\\x1b[2J\n", out.String(), "aligned, empty values left out, escaped")

	out.Reset()
	require.NoError(t, ios.PrintFields(Field{Name: "UTR"}))
	assert.Empty(t, out.String(), "nothing when every value is empty")
}

func TestWriteLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"done", "done\n"},
		{"done\n", "done\n"},
		{"", "\n"},
	} {
		var b bytes.Buffer
		require.NoError(t, WriteLine(&b, tt.in))
		assert.Equal(t, tt.want, b.String(), "%q", tt.in)
	}
	assert.ErrorIs(t, WriteLine(failWriter{}, "x"), io.ErrClosedPipe)
}

func TestMultilineSafe(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"unknown command \"advanc\"\n\nDid you mean this?\n\tadvance\n\n",
			"unknown command \"advanc\"\n\nDid you mean this?\n\tadvance"},
		{"unknown flag: --x\x1b[2J\n", `unknown flag: --x\x1b[2J`},
		{"\t\tdeep\x07", "\t\tdeep\\x07"},
		{"line\r\n\tnext", `line\x0d` + "\n\tnext"},
		{"", ""},
	} {
		assert.Equal(t, tt.want, MultilineSafe(tt.in), "%q", tt.in)
	}
}

// TestSecretsAdd: added values are hidden in every stream, the empty value
// is no secret, a value holding a shorter one is hidden whole, and values
// of one length apply in the order added.
func TestSecretsAdd(t *testing.T) {
	redacted := func(add [][]string, text string) string {
		var out bytes.Buffer
		ios := New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
		for _, values := range add {
			ios.Secrets().Add(values...)
		}
		_, err := ios.Out.Write([]byte(text))
		require.NoError(t, err)
		return out.String()
	}
	tests := []struct {
		name string
		add  [][]string
		text string
		want string
	}{
		{"one value", [][]string{{"pg-pass"}}, "dsn pg-pass end", "dsn [REDACTED] end"},
		{"empty values are none", [][]string{{"", "pg-pass", ""}}, "dsn pg-pass end", "dsn [REDACTED] end"},
		{"only empty", [][]string{{""}}, "dsn pg-pass end", "dsn pg-pass end"},
		{"longest first", [][]string{{"pa", "pa:ss"}}, "dsn pa:ss end", "dsn [REDACTED] end"},
		{"longest first over calls", [][]string{{"pa"}, {"pa:ss"}}, "dsn pa:ss end", "dsn [REDACTED] end"},
		{"same length in order added", [][]string{{"a:b", "b:c"}}, "x a:b:c", "x [REDACTED]:c"},
		{"same length in order added, reversed", [][]string{{"b:c", "a:b"}}, "x a:b:c", "x a:[REDACTED]"},
		{"nothing added", nil, "x pa:ss", "x pa:ss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, redacted(tt.add, tt.text))
		})
	}

	var out bytes.Buffer
	ios := New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
	ios.Secrets().Add("whsec_1")
	ios.Secrets().Set(upicollect.Credentials{MID: "m", PublicKey: "pk_1", SecretKey: "sk_2"})
	require.NoError(t, WriteLine(ios.Out, "whsec_1 sk_2"))
	assert.Equal(t, "[REDACTED] [REDACTED]\n", out.String(), "credentials and added values together")
}

// TestTerminalSafeEdges: text shorter than its escapes, the first C1
// control, a U+FFFD that was in the text next to one that was not UTF-8.
func TestTerminalSafeEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\x1b", `\x1b`},
		{"\x7f", `\x7f`},
		{"\u0080", `\u0080`},
		{"\u009f", `\u009f`},
		{"\ufffd\x1b", "\ufffd" + `\x1b`},
		{"\ufffd\xff", "\ufffd" + `\xff`},
		{"\uffff\x1b", "\uffff" + `\x1b`},
		{"\U0010ffff\x1b", "\U0010ffff" + `\x1b`},
		{"\U000e007f", `\U000e007f`},
	} {
		assert.Equal(t, tt.want, TerminalSafe(tt.in), "%q", tt.in)
	}
}
