package wire

import (
	"testing"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatusRequestEncode: the hand-written encoding is go-querystring's.
func TestStatusRequestEncode(t *testing.T) {
	t.Parallel()
	for _, r := range []StatusRequest{
		{MID: "MID123", OrderID: "ORD-1"},
		{MID: "m i&d=", OrderID: "ORD/1?#%+é"},
		{},
	} {
		v, err := query.Values(&r)
		require.NoError(t, err)
		assert.Equal(t, v.Encode(), r.Encode(), "%+v", r)
	}
}

func FuzzStatusRequestEncode(f *testing.F) {
	f.Add("MID", "ORD-1")
	f.Fuzz(func(t *testing.T, mid, order string) {
		r := StatusRequest{MID: mid, OrderID: order}
		v, err := query.Values(&r)
		if err != nil {
			t.Skip()
		}
		if v.Encode() != r.Encode() {
			t.Fatalf("%q != %q", r.Encode(), v.Encode())
		}
	})
}
