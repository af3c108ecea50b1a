//go:build !race

package sqlstore_test

const raceEnabled = false
