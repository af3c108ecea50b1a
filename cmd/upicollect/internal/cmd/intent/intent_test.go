package intent

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
)

// TestPrintIntentSparse: an answer without app links, expiry or amount
// still prints every key, with {} and null.
func TestPrintIntentSparse(t *testing.T) {
	var out bytes.Buffer
	ios := iostreams.New(strings.NewReader(""), &out, &bytes.Buffer{}, func(string) string { return "" })
	require.NoError(t, printIntent(ios, true, &upicollect.Intent{OrderID: "o1", Link: "upi://pay?pa=a@b"}, false))
	assert.Equal(t, `{"order_id":"o1","amount":null,"link":"upi://pay?pa=a@b","app_links":{},"dynamic_qr":"","expires_at":null,"message":""}`+"\n", out.String())

	out.Reset()
	require.NoError(t, printIntent(ios, false, &upicollect.Intent{OrderID: "o1", DynamicQR: "data:image/png;base64," + strings.Repeat("A", 200)}, true))
	assert.Contains(t, out.String(), "… (222 bytes)", "image data is not dumped on the terminal")
	assert.NotContains(t, out.String(), "\n\n", "no link, no QR drawn")
}

func TestQRSummary(t *testing.T) {
	short := strings.Repeat("a", 120)
	assert.Equal(t, short, qrSummary(short))
	long := strings.Repeat("a", 121)
	assert.Equal(t, strings.Repeat("a", 60)+"… (121 bytes)", qrSummary(long))
}
