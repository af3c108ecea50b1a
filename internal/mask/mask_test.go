package mask

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMask(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"email", Email, "ravi@example.com", "r***@example.com"},
		{"email one char", Email, "r@example.com", "r***@example.com"},
		{"email multibyte", Email, "éva@example.com", "é***@example.com"},
		{"email no at", Email, "ravi", "***"},
		{"email empty local", Email, "@example.com", "***"},
		{"email empty", Email, "", ""},
		{"mobile", Mobile, "9876543210", "******3210"},
		{"mobile short", Mobile, "3210", "****"},
		{"mobile five", Mobile, "43210", "*3210"},
		{"mobile empty", Mobile, "", ""},
		{"vpa", VPA, "ravi@okaxis", "ra***@okaxis"},
		{"vpa three", VPA, "rav@okaxis", "ra***@okaxis"},
		{"vpa two", VPA, "ra@okaxis", "***@okaxis"},
		{"vpa no at", VPA, "ravi", "***"},
		{"vpa empty handle", VPA, "@okaxis", "***"},
		{"vpa empty", VPA, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.fn(tt.in))
		})
	}
}
