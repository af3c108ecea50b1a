module github.com/upicollect/upicollect-go/bench/river

// go 1.26.0, not the repository's floor 1.23: River v0.51.2 (the anchor this
// benchmark measures the ledger against) declares go 1.26.0. The module is a
// benchmark, never published nor imported, and it stays out of go.work so
// that the other modules keep the floor (build it with GOWORK=off; the
// replace lines below stand in for the workspace).
go 1.26.0

replace (
	github.com/upicollect/upicollect-go v0.4.0 => ../..
	github.com/upicollect/upicollect-go/reconcile v0.4.0 => ../../reconcile
	github.com/upicollect/upicollect-go/reconcile/sqlstore v0.4.0 => ../../reconcile/sqlstore
	github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest v0.4.0 => ../../reconcile/sqlstore/drivertest
)

require (
	github.com/jackc/pgx/v5 v5.13.0
	github.com/riverqueue/river v0.51.2
	github.com/riverqueue/river/riverdriver/riverpgxv5 v0.51.2
	github.com/stretchr/testify v1.12.1
	github.com/upicollect/upicollect-go v0.4.0
	github.com/upicollect/upicollect-go/reconcile v0.4.0
	github.com/upicollect/upicollect-go/reconcile/sqlstore v0.4.0
	github.com/upicollect/upicollect-go/reconcile/sqlstore/drivertest v0.4.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/riverqueue/river/riverdriver v0.51.2 // indirect
	github.com/riverqueue/river/rivershared v0.51.2 // indirect
	github.com/riverqueue/river/rivertype v0.51.2 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.2.0 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.10.0 // indirect
)
