// Package wire holds the Payment Collection Service's wire formats: the form
// bodies the SDK sends and the JSON envelopes it reads, decoded leniently
// because the live service drifts from its document. It knows nothing of
// the public types.
package wire
