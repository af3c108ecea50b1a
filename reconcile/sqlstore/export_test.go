package sqlstore

// PruneBatch is how many orders one Prune transaction deletes.
const PruneBatch = pruneBatch

// Statements returns the store's statements on d by name, as they are
// sent (the lease statement for a batch of 1000), for the query plan
// tests.
func Statements(d Dialect) map[string]string {
	q := newQueries(d)
	return map[string]string{
		"lease":      q.leaseQuery(1000),
		"leaseOrder": q.leaseOrder,
		"extend":     q.extend,
		"commit":     q.commit,
		"retry":      q.retry,
		"commitMany": q.commitMany,
		"release":    q.release,
		"nextDue":    q.nextDue,
		"untrack":    q.untrack,
	}
}
