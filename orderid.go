package upicollect

// ValidateOrderID checks id by the rule every operation applies to an
// order_id before sending it: nil, or a *ValidationError (matching
// ErrValidation) naming "order_id" and the problem, with op as its Op.
// Code that stores order ids to check later (a reconciliation sweeper)
// refuses a bad one when it is given, not at every check.
func ValidateOrderID(op, id string) error {
	var chk checker
	chk.orderID(id, true)
	return chk.err(op)
}
