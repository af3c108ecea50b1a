module github.com/upicollect/upicollect-go/reconcile/sqlstore

go 1.23.0

require (
	github.com/upicollect/upicollect-go v0.4.0
	github.com/upicollect/upicollect-go/reconcile v0.4.0
)
