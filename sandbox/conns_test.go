package sandbox

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

// TestClientReusesConnections: Client keeps as many idle connections as
// the SDK's default client, so batches of 8 status checks, one after
// another, reuse the connections the first batch opened instead of
// opening new ones each time (http.Transport keeps 2 by default).
func TestClientReusesConnections(t *testing.T) {
	s := Start(t)
	c := s.Client()
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("conn-%d", i)
		require.Equal(t, 200, call(t, s, OpCreatePaymentLink, with(linkForm(s), "order_id", ids[i])).code)
	}
	s.Clear(Counts)
	const rounds = 20
	for r := 0; r < rounds; r++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		n := 0
		for st, err := range c.CheckPaymentStatuses(ctx, slices.Values(ids), upicollect.WithConcurrency(len(ids))) {
			require.NoError(t, err)
			require.Equal(t, upicollect.TxnPending, st.TxnStatus)
			n++
		}
		cancel()
		require.Equal(t, len(ids), n)
	}
	st := s.Stats()
	require.Equal(t, int64(rounds*len(ids)), st.Requests[OpCheckPaymentStatus])
	t.Logf("%d connections for %d rounds of %d checks", st.Connections, rounds, len(ids))
	assert.LessOrEqual(t, st.Connections, int64(2*len(ids)), "connections reused across rounds")
}
