//go:build race

package drivertest_test

// raceEnabled scales the process test down under the race detector.
const raceEnabled = true
