package sandbox

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentClients has 256 clients create, pay and check orders at
// once, with duplicate creates racing each other; run with -race.
func TestConcurrentClients(t *testing.T) {
	s := Start(t)
	require.NoError(t, s.setVariants([]string{VariantStringAmounts}, nil)) // variants read concurrently
	const n = 256
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = client(s, i)
		}()
	}
	close(start)
	wg.Wait()

	var created, dups int
	for i, r := range results {
		require.NoError(t, r.err, "client %d", i)
		created += r.created
		dups += r.dup
	}
	// Pairs of clients share an order_id: exactly one of each pair wins.
	assert.Equal(t, n/2, dups)
	assert.Equal(t, n/2+n, created)
	assert.Equal(t, created, len(s.Orders()))
	for _, o := range s.Orders() {
		assert.Equal(t, StatusSuccess, o.Status, o.OrderID)
	}
	assert.Len(t, s.Requests(), n*4)
}

// result is what one concurrent client did.
type result struct {
	created, dup int
	err          error
}

// client creates a shared-id intent, a link, pays the link and checks it.
// It returns errors instead of failing t: it runs off the test goroutine.
func client(s *Server, i int) (r result) {
	id := fmt.Sprintf("shared-%d", i/2)
	a, err := try(s, OpCreatePaymentIntent, with(intentForm(s), "order_id", id).Encode())
	if err != nil {
		r.err = err
		return r
	}
	switch a.code {
	case 200:
		r.created++
		if _, err := s.Pay(id); err != nil {
			r.err = err
			return r
		}
	case 409:
		r.dup++
	default:
		r.err = fmt.Errorf("intent: %d %s", a.code, a.body)
		return r
	}
	a, err = try(s, OpCreatePaymentLink, linkForm(s).Encode())
	if err != nil || a.code != 200 {
		r.err = fmt.Errorf("link: %v %d", err, a.code)
		return r
	}
	r.created++
	var link struct {
		Data struct {
			PaymentLink string `json:"payment_link"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &link); err != nil {
		r.err = err
		return r
	}
	orderID := link.Data.PaymentLink[len(s.URL()+pagePrefix):]
	resp, err := s.HTTPClient().PostForm(s.URL()+"/sandbox/orders/"+orderID+"/pay", map[string][]string{"result": {"SUCCESS"}})
	if err != nil {
		r.err = err
		return r
	}
	resp.Body.Close()
	a, err = try(s, OpCheckPaymentStatus, statusForm(s, orderID).Encode())
	if err != nil || a.code != 200 || !json.Valid(a.body) {
		r.err = fmt.Errorf("status: %v %d", err, a.code)
		return r
	}
	var st struct {
		TxnStatus string `json:"txnStatus"`
		Data      struct {
			Amount string `json:"amount"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &st); err != nil || st.TxnStatus != StatusSuccess || st.Data.Amount != "1.00" {
		r.err = fmt.Errorf("status answer %s: %v", a.body, err)
	}
	return r
}
