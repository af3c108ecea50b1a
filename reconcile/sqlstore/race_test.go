//go:build race

package sqlstore_test

// raceEnabled scales the process test down under the race detector.
const raceEnabled = true
