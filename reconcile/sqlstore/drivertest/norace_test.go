//go:build !race

package drivertest_test

const raceEnabled = false
