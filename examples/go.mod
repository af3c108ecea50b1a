module github.com/upicollect/upicollect-go/examples

go 1.23.0

require (
	github.com/stretchr/testify v1.12.1
	github.com/upicollect/upicollect-go v0.4.0
	github.com/upicollect/upicollect-go/reconcile v0.4.0
)
