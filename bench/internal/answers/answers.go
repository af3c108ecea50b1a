// Package answers holds the fixed server's answers: the service's success
// shape for each operation, as its specification shows it.
package answers

import "embed"

//go:embed bodies/*.json
var bodies embed.FS

// ByPath maps each operation's path to its success body.
func ByPath() map[string][]byte {
	m := map[string][]byte{}
	for op, file := range map[string]string{
		"checkPaymentStatus":   "status.json",
		"createPaymentIntent":  "intent.json",
		"createPaymentRequest": "request.json",
		"createPaymentLink":    "link.json",
	} {
		b, err := bodies.ReadFile("bodies/" + file)
		if err != nil {
			panic(err) // embedded at build time
		}
		m["/v1/payments/"+op] = b
	}
	return m
}
