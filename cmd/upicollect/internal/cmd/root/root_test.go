package root

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWantsJSON(t *testing.T) {
	for args, want := range map[string]bool{
		"status --json": true, "status --json=true": true, "status --json=false": false,
		"status": false, "qr -- --json": false, "status --jsonx": false,
		"status --json=0": false, "status --json=1": true, "status -- --json": false,
	} {
		assert.Equal(t, want, WantsJSON(strings.Fields(args)), args)
	}
}
