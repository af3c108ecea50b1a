// Package wire holds the Payment Collection Service's wire formats: the form
// bodies the SDK sends (encoded with go-querystring) and the JSON envelopes it
// reads, decoded leniently because the live service drifts from its document
// (see shared/spec/real-world.md). It knows nothing of the public types.
package wire
