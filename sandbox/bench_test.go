package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// BenchmarkSandboxRequests measures API requests per second over loopback:
// each iteration is a createPaymentLink and a checkPaymentStatus of the
// new order, sent by a plain net/http client from GOMAXPROCS goroutines.
func BenchmarkSandboxRequests(b *testing.B) {
	s := New(WithRequestLog(1000, 0))
	defer s.Close()
	creds := s.Credentials()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, Proxy: nil}}
	defer client.CloseIdleConnections()
	linkBody := url.Values{
		"mid": {creds.MID}, "amount": {"499"}, "note": {"bench"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}.Encode()
	do := func(op, body string) []byte {
		req, err := http.NewRequest(http.MethodPost, s.URL()+apiPrefix+op, strings.NewReader(body))
		if err != nil {
			b.Error(err)
			return nil
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(creds.PublicKey, creds.SecretKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return nil
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Errorf("%s: %d %v", op, resp.StatusCode, err)
		}
		return out
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var link struct {
				Data struct {
					PaymentLink string `json:"payment_link"`
				} `json:"data"`
			}
			if err := json.Unmarshal(do(OpCreatePaymentLink, linkBody), &link); err != nil {
				b.Error(err)
				return
			}
			id := link.Data.PaymentLink[strings.LastIndexByte(link.Data.PaymentLink, '/')+1:]
			do(OpCheckPaymentStatus, url.Values{"mid": {creds.MID}, "order_id": {id}}.Encode())
		}
	})
	b.ReportMetric(float64(2*b.N)/time.Since(start).Seconds(), "req/s")
}
