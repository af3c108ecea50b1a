package webhook

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFirstBodiesBounded: the first body remembered for an id stays until
// it is forgotten; beyond maxRemembered ids, the oldest are forgotten.
func TestFirstBodiesBounded(t *testing.T) {
	var f firstBodies
	_, ok := f.get("evt_0")
	assert.False(t, ok)
	f.remember("evt_0", []byte("first"))
	f.remember("evt_0", []byte("second"))
	b, ok := f.get("evt_0")
	assert.True(t, ok)
	assert.Equal(t, "first", string(b))
	f.forget("evt_0")
	f.forget("evt_0")
	_, ok = f.get("evt_0")
	assert.False(t, ok)
	assert.Equal(t, 0, f.remembered())

	for i := range maxRemembered + 2 {
		f.remember("evt_"+strconv.Itoa(i), []byte(strconv.Itoa(i)))
	}
	assert.Equal(t, maxRemembered, f.remembered())
	for _, i := range []int{0, 1} {
		_, ok := f.get("evt_" + strconv.Itoa(i))
		assert.False(t, ok, "evt_%d, the oldest, is forgotten", i)
	}
	for _, i := range []int{2, maxRemembered + 1} {
		b, ok := f.get("evt_" + strconv.Itoa(i))
		assert.True(t, ok)
		assert.Equal(t, strconv.Itoa(i), string(b))
	}
}
