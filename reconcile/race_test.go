//go:build race

package reconcile_test

// raceEnabled scales the mix down under the race detector, which slows
// every check several times over.
const raceEnabled = true
