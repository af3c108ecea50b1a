package redisrate_test

import (
	"github.com/redis/go-redis/v9"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/redisrate"
)

// newClient is docs/reliability.md's "Running many processes" setup: every process
// that runs it shares one limit of 50 requests a second, bursts of 10.
func newClient(creds upicollect.Credentials) (*upicollect.Client, error) {
	rdb := redis.NewClient(&redis.Options{
		Addr:          "redis:6379",
		MaxRetries:    -1, // fail at once when Redis is down, not after seconds of retries
		DialerRetries: 1,
	})
	// One key per merchant id: the service's quota is per merchant.
	limiter := redisrate.New(rdb, "upicollect:"+creds.MID, 50, 10)
	return upicollect.NewClient(creds,
		upicollect.WithBaseURL("https://api.example.com"),
		upicollect.WithRateLimiter(limiter))
}

// Every process of a fleet makes its client the same way; their requests,
// retries and polls together stay within the limit.
func Example() {
	creds, err := upicollect.CredentialsFromEnv()
	if err != nil {
		return
	}
	client, err := newClient(creds)
	if err != nil {
		return
	}
	defer client.CloseIdleConnections()
}
