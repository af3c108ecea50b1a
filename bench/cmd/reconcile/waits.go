package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// waitEvery is how often a waitSampler reads pg_stat_activity.
const waitEvery = 10 * time.Millisecond

// waitSampler counts, until stopped, the database's active client
// backends (its own aside) and those of them waiting for a lock
// (wait_event_type Lock: a row, a transaction, a relation's extension).
type waitSampler struct {
	stop            context.CancelFunc
	done            chan struct{}
	mu              sync.Mutex
	samples, locked int
	err             error
}

// sampleWaits samples db once, on a connection of its own, and goes on
// every waitEvery until end; on no database (nil) it samples nothing.
func sampleWaits(ctx context.Context, db *sql.DB) (*waitSampler, error) {
	w := &waitSampler{done: make(chan struct{}), stop: func() {}}
	if db == nil {
		close(w.done)
		return w, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if err := w.poll(ctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	ctx, w.stop = context.WithCancel(ctx)
	go func() {
		defer close(w.done)
		defer conn.Close()
		tick := time.NewTicker(waitEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if err := w.poll(ctx, conn); err != nil && ctx.Err() == nil {
				w.mu.Lock()
				w.err = cmp.Or(w.err, err)
				w.mu.Unlock()
			}
		}
	}()
	return w, nil
}

// poll reads pg_stat_activity once and counts what it saw.
func (w *waitSampler) poll(ctx context.Context, conn *sql.Conn) error {
	var active, locked int
	if err := conn.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock')
		FROM pg_stat_activity WHERE backend_type = 'client backend' AND state = 'active'
			AND pid <> pg_backend_pid() AND datname = current_database()`).Scan(&active, &locked); err != nil {
		return fmt.Errorf("sampling the backends' waits: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples, w.locked = w.samples+active, w.locked+locked
	return nil
}

// end stops the sampling and returns the backend samples, those waiting
// for a lock, and the first read that failed.
func (w *waitSampler) end() (samples, locked int, err error) {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.samples, w.locked, w.err
}
