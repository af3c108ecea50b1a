package reconcile_test

import (
	"testing"

	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) reconcile.Store { return reconcile.NewMemoryStore() })
}
