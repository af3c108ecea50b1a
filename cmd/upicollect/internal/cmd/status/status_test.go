package status

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestShortStatus(t *testing.T) {
	unknown := &upicollect.PaymentStatus{TxnStatus: upicollect.TxnPending, NotFound: true}
	known := &upicollect.PaymentStatus{TxnStatus: upicollect.TxnPending}
	assert.Equal(t, "PENDING, waiting for the payer", Short(unknown), "the spinner and a timed-out wait say so")
	assert.Equal(t, "PENDING", Short(known))
	assert.Equal(t, "PENDING, waiting for the payer (no payment started; a mistyped order id reads the same)", Text(unknown))
	assert.Equal(t, "PENDING", Text(known))
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, failed, total int
		elapsed             time.Duration
		want                string
	}{
		{0, 0, 10, 0, "[--------------------] 0/10 checked, 0 failed, -/s"},
		{5, 1, 10, 2 * time.Second, "[##########----------] 5/10 checked, 1 failed, 2.5/s"},
		{10, 0, 10, time.Second, "[####################] 10/10 checked, 0 failed, 10.0/s"},
		{12, 0, 10, time.Second, "[####################] 12/10 checked, 0 failed, 12.0/s"},
		{7, 0, 0, 4 * time.Second, "7 checked, 0 failed, 1.8/s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, progressLine(tt.done, tt.failed, tt.total, tt.elapsed))
	}
}
