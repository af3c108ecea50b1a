package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/upicollect/upicollect-go/reconcile"
)

// errHasEvent is CommitMany's error for an outcome that carries an event.
var errHasEvent = errors.New("sqlstore: CommitMany: an outcome with an event goes through Commit")

// checkedArg is 1 for an answered check, else 0.
func checkedArg(u reconcile.Update) int64 {
	if u.Checked {
		return 1
	}
	return 0
}

func (s *store) commitArgs(l reconcile.Lease, u reconcile.Update) []any {
	return []any{s.clockArg(), string(u.State), nullTime(u.Next), checkedArg(u), int64(u.Failures), nullString(u.Reason), l.Order.ID, token(l)}
}

func (s *store) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	if u.Event == nil {
		if err := s.leased(ctx, s.db, s.q.commit, s.commitArgs(l, u)...); err != nil {
			return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
		}
		return nil
	}
	tx, cancel, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
	}
	defer cancel()
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	// The lease is checked and the row locked first: from here until the
	// commit no other sweeper can lease the order, nor Untrack end it.
	if err := s.leased(ctx, tx, s.q.commit, s.commitArgs(l, u)...); err != nil {
		return fmt.Errorf("sqlstore: order %q: %w", l.Order.ID, err)
	}
	if _, err := s.exec(ctx, tx, s.q.event, eventArgs(l.Order.ID, u.Event)...); err != nil {
		return fmt.Errorf("sqlstore: order %q: recording %s: %w", l.Order.ID, u.Event.Result, err)
	}
	consumer := u.Consumer
	if consumer == "" {
		consumer = reconcile.DefaultConsumer
	}
	if _, err := s.exec(ctx, tx, s.q.fanOut, l.Order.ID, string(u.Event.Result), u.Event.At.UnixNano(), consumer, s.clockArg(), consumer); err != nil {
		return fmt.Errorf("sqlstore: order %q: recording %s's deliveries: %w", l.Order.ID, u.Event.Result, err)
	}
	if deliver != nil {
		if err := deliver(context.WithValue(ctx, txKey{}, tx)); err != nil {
			_ = tx.Rollback()
			return s.retry(ctx, l, u, err)
		}
	}
	if err := s.commit(tx, cancel); err != nil {
		return fmt.Errorf("sqlstore: order %q: committing %s: %w", l.Order.ID, u.Event.Result, err)
	}
	return nil
}

// retry records u.Retry after deliver failed with cause: the order keeps
// its state and checks (the outcome is not recorded) and is due at
// Retry.Next (l.Due when zero); the lease ends.
func (s *store) retry(ctx context.Context, l reconcile.Lease, u reconcile.Update, cause error) error {
	next := u.Retry.Next
	if next.IsZero() {
		next = l.Due
	}
	err := s.leased(context.WithoutCancel(ctx), s.db, s.q.retry, s.clockArg(), next.UnixNano(), int64(u.Retry.Failures), l.Order.ID, token(l))
	if err != nil && !errors.Is(err, reconcile.ErrLeaseLost) {
		return errors.Join(cause, fmt.Errorf("sqlstore: order %q: recording the retry: %w", l.Order.ID, err))
	}
	return cause
}

func eventArgs(orderID string, e *reconcile.Event) []any {
	var txn, utr string
	var paid int64
	if e.Status != nil {
		txn, utr, paid = string(e.Status.TxnStatus), e.Status.UTR, e.Status.Amount.Paise()
	}
	return []any{orderID, string(e.Result), e.At.UnixNano(), txn, paid, utr, e.Reason}
}

func (s *store) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate) ([]error, error) {
	errs := make([]error, len(cs))
	var idx []int // the outcomes to record, by index into cs
	for i, c := range cs {
		if c.Update.Event != nil {
			errs[i] = errHasEvent
			continue
		}
		idx = append(idx, i)
	}
	for len(idx) > 0 {
		batch := idx[:min(len(idx), maxBatch)]
		idx = idx[len(batch):]
		held, err := s.commitMany(ctx, cs, batch)
		if err != nil {
			return errs, fmt.Errorf("sqlstore: committing %d outcomes: %w", len(batch), err)
		}
		for _, i := range batch {
			if !held[i] {
				errs[i] = fmt.Errorf("sqlstore: order %q: %w", cs[i].Lease.Order.ID, reconcile.ErrLeaseLost)
			}
		}
	}
	return errs, nil
}

// commitMany records the outcomes cs[batch] in one statement (PostgreSQL:
// UPDATE … FROM unnest of arrays; SQLite: UPDATE … FROM json_each of one
// JSON array), and returns which of them were recorded.
func (s *store) commitMany(ctx context.Context, cs []reconcile.LeasedUpdate, batch []int) (map[int]bool, error) {
	held := make(map[int]bool, len(batch))
	if s.d == SQLite {
		rows := make([][7]any, len(batch))
		at := make(map[string]int, len(batch))
		for j, i := range batch {
			l, u := cs[i].Lease, cs[i].Update
			var due, reason any
			if !u.Next.IsZero() {
				due = u.Next.UnixNano()
			}
			if u.Reason != "" {
				reason = u.Reason
			}
			rows[j] = [7]any{l.Order.ID, token(l), string(u.State), due, checkedArg(u), u.Failures, reason}
			at[l.Order.ID] = i
		}
		js, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		return held, s.returning(ctx, s.q.commitMany, func(id string) { held[at[id]] = true }, s.clockArg(), string(js))
	}
	n := len(batch)
	var (
		ids, states, reasons       = make([]string, n), make([]string, n), make([]string, n)
		toks, dues, checked, fails = make([]int64, n), make([]int64, n), make([]int32, n), make([]int32, n)
		at                         = make(map[string]int, n)
	)
	for j, i := range batch {
		l, u := cs[i].Lease, cs[i].Update
		ids[j], toks[j], states[j], reasons[j] = l.Order.ID, token(l), string(u.State), u.Reason
		if !u.Next.IsZero() {
			dues[j] = u.Next.UnixNano()
		}
		checked[j], fails[j] = int32(checkedArg(u)), int32(u.Failures)
		at[l.Order.ID] = i
	}
	return held, s.returning(ctx, s.q.commitMany, func(id string) { held[at[id]] = true },
		s.clockArg(), ids, toks, states, dues, checked, fails, reasons)
}

// returning runs a bounded statement that returns order ids, and calls
// fn with each.
func (s *store) returning(ctx context.Context, query string, fn func(id string), args ...any) error {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(bctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		fn(id)
	}
	return rows.Err()
}
