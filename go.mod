module github.com/upicollect/upicollect-go

go 1.23

require (
	github.com/google/go-querystring v1.2.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.11.0
	golang.org/x/time v0.10.0
	rsc.io/qr v0.2.0
)

require go.yaml.in/yaml/v3 v3.0.6 // indirect
