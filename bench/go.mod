module github.com/upicollect/upicollect-go/bench

go 1.23

require (
	github.com/go-resty/resty/v2 v2.16.5
	github.com/jackc/pgx/v5 v5.7.6
	github.com/redis/go-redis/v9 v9.17.3
	github.com/stretchr/testify v1.12.1
	github.com/upicollect/upicollect-go v0.4.0
	github.com/upicollect/upicollect-go/reconcile v0.4.0
	github.com/upicollect/upicollect-go/reconcile/sqlstore v0.4.0
	github.com/upicollect/upicollect-go/redisrate v0.4.0
	golang.org/x/sync v0.11.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/go-redis/redis_rate/v10 v10.0.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.2 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.37.0 // indirect
	golang.org/x/net v0.33.0 // indirect
	golang.org/x/text v0.24.0 // indirect
	golang.org/x/time v0.10.0 // indirect
	rsc.io/qr v0.2.0 // indirect
)
