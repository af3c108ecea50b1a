package dashboard

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest/pgtest"
)

// levels records the level of every log record.
type levels struct {
	mu   sync.Mutex
	seen []slog.Level
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, r.Level)
	return nil
}
func (l *levels) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levels) WithGroup(string) slog.Handler      { return l }

// atLeast returns the recorded levels of min and above.
func (l *levels) atLeast(min slog.Level) []slog.Level {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []slog.Level
	for _, lv := range l.seen {
		if lv >= min {
			out = append(out, lv)
		}
	}
	return out
}

// sqlLedger is an empty sqlstore ledger on db.
func sqlLedger(t *testing.T, db *sql.DB, d sqlstore.Dialect) reconcile.Store {
	st, err := sqlstore.New(testContext(t), db, d)
	require.NoError(t, err)
	return st
}

// TestHostileIDsAreNotFound: on every store, an order page for an id no
// order can have (a NUL byte, invalid UTF-8, longer than Track accepts)
// is a 404 like an unknown id's, a list page after one is empty, and
// nothing is logged at ERROR: PostgreSQL's refusal of such text used to
// be a 500 and an ERROR line per request.
func TestHostileIDsAreNotFound(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) reconcile.Store
	}{
		{"Memory", func(*testing.T) reconcile.Store { return reconcile.NewMemoryStore() }},
		{"SQLite", func(t *testing.T) reconcile.Store {
			db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "ledger.db")+"?_pragma=busy_timeout(3000)")
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			return sqlLedger(t, db, sqlstore.SQLite)
		}},
		{"PostgreSQL", func(t *testing.T) reconcile.Store {
			_, db := pgtest.Start(t).NewDB(t)
			return sqlLedger(t, db, sqlstore.Postgres)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.open(t)
			require.NoError(t, st.Track(testContext(t), reconcile.Order{ID: "ord-1", Amount: upicollect.Rupees(499), Created: now}, now))
			var logged levels
			srv := serve(t, st, WithLogger(slog.New(&logged)))
			for name, id := range map[string]string{
				"NUL":             "ord-1%00",
				"InvalidUTF8":     "ord-1%FF",
				"Oversize":        strings.Repeat("x", upicollect.MaxOrderIDLen+1),
				"ValidButUnknown": "ord-2",
			} {
				code, body := get(t, srv, "/orders/"+id)
				assert.Equal(t, http.StatusNotFound, code, name)
				assert.Contains(t, body, "Not in the ledger", name)
				code, body = get(t, srv, "/orders?before="+id)
				assert.Equal(t, http.StatusOK, code, name)
				assert.NotContains(t, body, `data-order="ord-1"`, "a page after an order no store holds is empty: %s", name)
			}
			code, body := get(t, srv, "/orders/ord-1")
			assert.Equal(t, http.StatusOK, code, "the control: a tracked order")
			assert.Contains(t, body, "ord-1")
			assert.Empty(t, logged.atLeast(slog.LevelError), "nothing logged at ERROR")
		})
	}
}
