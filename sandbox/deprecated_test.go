package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeprecatedNames: 0.3.0's names keep doing what they did, through
// the names that replace them.
func TestDeprecatedNames(t *testing.T) {
	s := Start(t)
	assert.Equal(t, s.Service, s.Handler())

	s.InjectFault(Fault{Op: OpCreatePaymentLink, Status: 503, Times: -1})
	require.Equal(t, 200, call(t, s, OpCheckPaymentStatus, statusForm(s, "x")).code)
	assert.Equal(t, len(s.Orders()), s.OrderCount())
	s.ClearRequests()
	assert.Empty(t, s.Requests())
	assert.Equal(t, int64(1), s.Stats().Requests[OpCheckPaymentStatus])
	s.ResetStats()
	assert.Zero(t, s.Stats().Requests[OpCheckPaymentStatus])
	assert.Equal(t, 503, call(t, s, OpCreatePaymentLink, linkForm(s)).code)
	s.ClearFaults()
	assert.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)

	require.NoError(t, s.SetVariants([]string{VariantQRBase64}, nil))
	on := map[string]bool{}
	for _, v := range s.Variants() {
		on[v.Name] = v.Enabled
	}
	assert.True(t, on[VariantQRBase64])
	assert.False(t, on[VariantStringAmounts])
	assert.Error(t, s.SetVariants([]string{"no-such-variant"}, nil))

	limited := Start(t, WithRequestLogLimit(1))
	for i := 0; i < 3; i++ {
		call(t, limited, OpCheckPaymentStatus, statusForm(limited, "x"))
	}
	assert.Len(t, limited.Requests(), 1)
	_, err := NewService(WithRequestLogBytes(0))
	assert.ErrorContains(t, err, "WithRequestLogBytes: 0 is not positive")
	small := Start(t, WithRequestLogBytes(1))
	call(t, small, OpCheckPaymentStatus, statusForm(small, "x"))
	assert.LessOrEqual(t, len(small.Requests()), 1)
}
