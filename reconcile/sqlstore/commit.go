package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/upicollect/upicollect-go/reconcile"
)

// checkedArg is 1 for an answered check, else 0.
func checkedArg(u reconcile.Update) int64 {
	if u.Checked {
		return 1
	}
	return 0
}

func (s *store) Commit(ctx context.Context, l reconcile.Lease, u reconcile.Update, deliver func(context.Context) error) error {
	var each func(context.Context, int) error
	if deliver != nil {
		each = func(ctx context.Context, _ int) error { return deliver(ctx) }
	}
	errs, err := s.CommitMany(ctx, []reconcile.LeasedUpdate{{Lease: l, Update: u}}, each)
	if err != nil {
		return err
	}
	return errs[0]
}

// maxEvents caps the events one CommitMany transaction delivers. A handler
// that writes through Tx writes under a savepoint of its own, and
// PostgreSQL keeps 64 subtransactions of a transaction in shared memory:
// past them every snapshot on the server reads pg_subtrans.
const maxEvents = 50

// savepoint is the name of the savepoint a handler writes under.
const savepoint = "upicollect_event"

func (s *store) CommitMany(ctx context.Context, cs []reconcile.LeasedUpdate, deliver func(context.Context, int) error) ([]error, error) {
	errs := make([]error, len(cs))
	for start := 0; start < len(cs); {
		// A part: up to maxBatch outcomes, of which up to maxEvents
		// carry an event.
		end, events := start, 0
		for end < len(cs) && end-start < maxBatch && (events < maxEvents || cs[end].Update.Event == nil) {
			if cs[end].Update.Event != nil {
				events++
			}
			end++
		}
		part := cs[start:end]
		var err error
		if events == 0 {
			err = s.commitQuiet(ctx, part, errs[start:end])
		} else {
			err = s.commitEvents(ctx, part, errs[start:end], func(ctx context.Context, i int) error {
				if deliver == nil {
					return nil
				}
				return deliver(ctx, start+i)
			})
		}
		if err != nil {
			err = fmt.Errorf("sqlstore: committing %d outcomes: %w", len(part), err)
			if start == 0 {
				return errs, err // nothing recorded
			}
			return partFailed(errs, start, err), nil
		}
		start = end
	}
	return errs, nil
}

// partFailed sets err, the error of the transaction that began at start,
// for each outcome from start on (not recorded), the outcomes before it
// having been recorded by their own transactions, and returns errs.
func partFailed(errs []error, start int, err error) []error {
	for i := start; i < len(errs); i++ {
		errs[i] = err
	}
	return errs
}

// commitQuiet records eventless outcomes in one statement, and sets
// errs[i] for those fenced out.
func (s *store) commitQuiet(ctx context.Context, cs []reconcile.LeasedUpdate, errs []error) error {
	held, err := s.commitMany(ctx, s.db, cs)
	if err != nil {
		return err
	}
	s.fenced(cs, held, errs)
	return nil
}

// fenced sets errs[i] to ErrLeaseLost for each outcome not held.
func (s *store) fenced(cs []reconcile.LeasedUpdate, held map[int]bool, errs []error) {
	for i, c := range cs {
		if !held[i] {
			errs[i] = fmt.Errorf("sqlstore: order %q: %w", c.Lease.Order.ID, reconcile.ErrLeaseLost)
		}
	}
}

// commitEvents records cs, some with events, in one transaction:
//
//  1. the quiet outcomes are recorded and the orders with events are
//     locked, each fenced by its lease (PostgreSQL: SELECT … FOR UPDATE;
//     SQLite: the write lock), so that from here to the commit no other
//     sweeper leases them and Untrack waits, whatever their leases' time;
//  2. each held event's handler runs, one at a time (deliver); a handler
//     that writes through Tx does so under a savepoint, rolled back if it
//     fails;
//  3. the outcomes of the delivered events are recorded with their events
//     and deliveries, and those whose handler failed record their retry;
//  4. the transaction commits: one WAL flush for the whole batch.
//
// errs[i] is cs[i]'s: ErrLeaseLost, or deliver's error.
func (s *store) commitEvents(ctx context.Context, cs []reconcile.LeasedUpdate, errs []error, deliver func(context.Context, int) error) error {
	var quiet, events []reconcile.LeasedUpdate
	var qi, ei []int // their indexes in cs
	for i, c := range cs {
		if c.Update.Event == nil {
			quiet, qi = append(quiet, c), append(qi, i)
		} else {
			events, ei = append(events, c), append(ei, i)
		}
	}
	tx, cancel, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	done, held, err := s.commitHold(ctx, tx, quiet, events)
	if err != nil {
		return err
	}
	for j, i := range qi {
		if !done[j] {
			errs[i] = fmt.Errorf("sqlstore: order %q: %w", cs[i].Lease.Order.ID, reconcile.ErrLeaseLost)
		}
	}
	var delivered []reconcile.LeasedUpdate // held events: delivered, or their retries
	var recorded []reconcile.LeasedUpdate  // the delivered ones
	for j, i := range ei {
		c := events[j]
		if !held[j] {
			errs[i] = fmt.Errorf("sqlstore: order %q: %w", c.Lease.Order.ID, reconcile.ErrLeaseLost)
			continue
		}
		h := &handlerTx{tx: tx, savepoint: true}
		err := deliver(context.WithValue(ctx, txKey{}, h), i)
		if h.err != nil {
			return fmt.Errorf("order %q: the handler's savepoint: %w", c.Lease.Order.ID, h.err)
		}
		if err != nil {
			if h.used {
				if _, rerr := s.exec(ctx, tx, `ROLLBACK TO SAVEPOINT `+savepoint); rerr != nil {
					return fmt.Errorf("order %q: rolling the handler back: %w", c.Lease.Order.ID, rerr)
				}
			}
			errs[i] = err
			delivered = append(delivered, retried(c))
			continue
		}
		delivered, recorded = append(delivered, c), append(recorded, c)
	}
	n, err := s.commitRecord(ctx, tx, delivered, recorded)
	if err != nil {
		return err
	}
	if n != len(delivered) { // held since the first statement: only a handler's own write to its order, through Tx, can do this
		return fmt.Errorf("%d of %d held orders changed under their lock", len(delivered)-n, len(delivered))
	}
	return s.commit(tx, cancel)
}

// commitHold records the quiet outcomes and locks the orders of events
// whose lease is still held, in tx, and says which of each (by index into
// quiet and events). PostgreSQL: one statement; SQLite: two.
func (s *store) commitHold(ctx context.Context, tx *sql.Tx, quiet, events []reconcile.LeasedUpdate) (done, held map[int]bool, err error) {
	if s.d == SQLite {
		if held, err = s.hold(ctx, tx, events); err != nil {
			return nil, nil, fmt.Errorf("holding the orders: %w", err)
		}
		if done, err = s.commitMany(ctx, tx, quiet); err != nil {
			return nil, nil, err
		}
		return done, held, nil
	}
	done, held = make(map[int]bool, len(quiet)), make(map[int]bool, len(events))
	qAt, eAt := indexByID(quiet), indexByID(events)
	ids, toks := make([]string, len(events)), make([]int64, len(events))
	for i, c := range events {
		ids[i], toks[i] = c.Lease.Order.ID, token(c.Lease)
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := tx.QueryContext(bctx, s.q.commitHold, append(append([]any{s.clockArg()}, pgCommitArrays(quiet)...), ids, toks)...)
	if err != nil {
		return nil, nil, fmt.Errorf("recording the quiet outcomes and holding the others: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id     string
			isHeld bool
		)
		if err := rows.Scan(&id, &isHeld); err != nil {
			return nil, nil, err
		}
		if isHeld {
			held[eAt[id]] = true
		} else {
			done[qAt[id]] = true
		}
	}
	return done, held, rows.Err()
}

// commitRecord records the outcomes cs (held since commitHold) in tx, with
// the events of recorded (those of cs whose handler did not fail), and
// returns how many outcomes it recorded. PostgreSQL: one statement;
// SQLite: one for the outcomes, two for each event.
func (s *store) commitRecord(ctx context.Context, tx *sql.Tx, cs, recorded []reconcile.LeasedUpdate) (int, error) {
	if len(cs) == 0 {
		return 0, nil
	}
	if s.d == SQLite {
		done, err := s.commitMany(ctx, tx, cs)
		if err != nil {
			return 0, err
		}
		return len(done), s.recordEvents(ctx, tx, recorded)
	}
	n := len(recorded)
	var (
		ids, results, txns, utrs, reasons, consumers = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		ats, paid                                    = make([]int64, n), make([]int64, n)
	)
	for i, c := range recorded {
		a := eventArgs(c.Lease.Order.ID, c.Update.Event)
		ids[i], results[i], ats[i], txns[i], paid[i], utrs[i], reasons[i] = a[0].(string), a[1].(string), a[2].(int64), a[3].(string), a[4].(int64), a[5].(string), a[6].(string)
		consumers[i] = consumerOf(c.Update)
	}
	args := append(append([]any{s.clockArg()}, pgCommitArrays(cs)...), ids, results, ats, txns, paid, utrs, reasons, consumers, ids, results, ats, consumers)
	recordedN := 0
	if err := s.returning(ctx, tx, s.q.commitRecord, func(string) { recordedN++ }, args...); err != nil {
		return 0, fmt.Errorf("recording %d outcomes with %d events: %w", len(cs), n, err)
	}
	return recordedN, nil
}

// indexByID maps each outcome's order id to its index in cs.
func indexByID(cs []reconcile.LeasedUpdate) map[string]int {
	at := make(map[string]int, len(cs))
	for i, c := range cs {
		at[c.Lease.Order.ID] = i
	}
	return at
}

// retried is the outcome recorded for c when its event's handler failed:
// the order keeps its state and checks and is due at Retry.Next (the
// lease's Due when zero) with Retry.Failures; the lease ends.
func retried(c reconcile.LeasedUpdate) reconcile.LeasedUpdate {
	next := c.Update.Retry.Next
	if next.IsZero() {
		next = c.Lease.Due
	}
	return reconcile.LeasedUpdate{Lease: c.Lease, Update: reconcile.Update{State: c.Lease.State, Next: next, Failures: c.Update.Retry.Failures}}
}

// hold locks the orders of cs whose lease is still held, in tx, and says
// which (by index into cs).
func (s *store) hold(ctx context.Context, tx *sql.Tx, cs []reconcile.LeasedUpdate) (map[int]bool, error) {
	at := make(map[string]int, len(cs))
	ids, toks := make([]string, len(cs)), make([]int64, len(cs))
	for i, c := range cs {
		ids[i], toks[i] = c.Lease.Order.ID, token(c.Lease)
		at[ids[i]] = i
	}
	held := make(map[int]bool, len(cs))
	var args []any
	if s.d == SQLite {
		rows := make([][2]any, len(cs))
		for i := range cs {
			rows[i] = [2]any{ids[i], toks[i]}
		}
		js, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		args = []any{string(js)}
	} else {
		args = []any{ids, toks}
	}
	return held, s.returning(ctx, tx, s.q.hold, func(id string) { held[at[id]] = true }, args...)
}

// recordEvents records the events of cs and their deliveries in tx:
// delivered to the outcome's consumer (on the event's row), pending for
// every other registered one (a delivery row each).
func (s *store) recordEvents(ctx context.Context, tx *sql.Tx, cs []reconcile.LeasedUpdate) error {
	// SQLite, in-process calls: one statement each, in the transaction.
	for _, c := range cs {
		ev := c.Update.Event
		consumer := consumerOf(c.Update)
		if _, err := s.exec(ctx, tx, s.q.event, append(eventArgs(c.Lease.Order.ID, ev), consumer)...); err != nil {
			return fmt.Errorf("order %q: recording %s: %w", c.Lease.Order.ID, ev.Result, err)
		}
		if _, err := s.exec(ctx, tx, s.q.fanOut, c.Lease.Order.ID, string(ev.Result), ev.At.UnixNano(), consumer); err != nil {
			return fmt.Errorf("order %q: recording %s's deliveries: %w", c.Lease.Order.ID, ev.Result, err)
		}
	}
	return nil
}

// consumerOf is the consumer u's event is delivered to.
func consumerOf(u reconcile.Update) string {
	if u.Consumer == "" {
		return reconcile.DefaultConsumer
	}
	return u.Consumer
}

func eventArgs(orderID string, e *reconcile.Event) []any {
	var txn, utr string
	var paid int64
	if e.Status != nil {
		txn, utr, paid = string(e.Status.TxnStatus), e.Status.UTR, e.Status.Amount.Paise()
	}
	return []any{orderID, string(e.Result), e.At.UnixNano(), txn, paid, utr, e.Reason}
}

// commitMany records the outcomes cs in one statement on q (PostgreSQL:
// UPDATE … FROM unnest of arrays; SQLite: UPDATE … FROM json_each of one
// JSON array), and returns which of them were recorded (by index into
// cs): those whose lease was still held.
func (s *store) commitMany(ctx context.Context, q rowser, cs []reconcile.LeasedUpdate) (map[int]bool, error) {
	held := make(map[int]bool, len(cs))
	at := make(map[string]int, len(cs))
	for i, c := range cs {
		at[c.Lease.Order.ID] = i
	}
	mark := func(id string) { held[at[id]] = true }
	if s.d == SQLite {
		rows := make([][7]any, len(cs))
		for i, c := range cs {
			l, u := c.Lease, c.Update
			var due, reason any
			if !u.Next.IsZero() {
				due = u.Next.UnixNano()
			}
			if u.Reason != "" {
				reason = u.Reason
			}
			rows[i] = [7]any{l.Order.ID, token(l), string(u.State), due, checkedArg(u), u.Failures, reason}
		}
		js, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		return held, s.returning(ctx, q, s.q.commitMany, mark, s.clockArg(), string(js))
	}
	return held, s.returning(ctx, q, s.q.commitMany, mark, append([]any{s.clockArg()}, pgCommitArrays(cs)...)...)
}

// pgCommitArrays are the outcomes cs as the PostgreSQL update's arrays:
// ids, tokens, states, dues (0: none), checked, failures, reasons.
func pgCommitArrays(cs []reconcile.LeasedUpdate) []any {
	n := len(cs)
	var (
		ids, states, reasons       = make([]string, n), make([]string, n), make([]string, n)
		toks, dues, checked, fails = make([]int64, n), make([]int64, n), make([]int32, n), make([]int32, n)
	)
	for i, c := range cs {
		l, u := c.Lease, c.Update
		ids[i], toks[i], states[i], reasons[i] = l.Order.ID, token(l), string(u.State), u.Reason
		if !u.Next.IsZero() {
			dues[i] = u.Next.UnixNano()
		}
		checked[i], fails[i] = int32(checkedArg(u)), int32(u.Failures)
	}
	return []any{ids, toks, states, dues, checked, fails, reasons}
}

// rowser runs a query: the database or a transaction.
type rowser interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// returning runs a bounded statement that returns order ids, and calls
// fn with each.
func (s *store) returning(ctx context.Context, q rowser, query string, fn func(id string), args ...any) error {
	bctx, cancel := s.bound(ctx)
	defer cancel()
	rows, err := q.QueryContext(bctx, query, args...)
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
