// Package retry holds the small, composable pieces the SDK client uses to
// retry calls and to pace them, modelled on aws-sdk-go-v2's aws/retry:
//
//   - Backoff: full-jitter exponential delays, so clients that failed
//     together do not retry together.
//   - ParseRetryAfter: honours a server's Retry-After header.
//   - Budget: a client-wide retry token bucket, so an outage does not
//     multiply the load on the service.
//   - PollDelay: the growing, jittered delay between a waiter's status polls.
//
// The pieces do not call each other; the client composes them into its
// retry loop.
package retry
