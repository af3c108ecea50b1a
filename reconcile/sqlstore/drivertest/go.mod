module github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest

go 1.23.0

require (
	github.com/jackc/pgx/v5 v5.7.6
	github.com/stretchr/testify v1.12.1
	github.com/upicollect/upicollect-go v0.4.0
	github.com/upicollect/upicollect-go/reconcile v0.4.0
	github.com/upicollect/upicollect-go/reconcile/sqlstore v0.4.0
	modernc.org/sqlite v1.38.2
)
