module github.com/upicollect/upicollect-go/redisrate

go 1.23

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/redis/go-redis/v9 v9.17.3
	github.com/stretchr/testify v1.12.1
	github.com/upicollect/upicollect-go v0.4.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sync v0.11.0 // indirect
	golang.org/x/time v0.10.0 // indirect
	rsc.io/qr v0.2.0 // indirect
)
