module github.com/reconcile/reconcile

go 1.26.0

require (
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/creack/pty v1.1.24
	github.com/duckdb/duckdb-go/v2 v2.5.6
	github.com/emersion/go-sasl v0.0.0-20241020182733-b788ff22d5a6
	github.com/emersion/go-smtp v0.25.1
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/goccy/go-json v0.10.6
	github.com/google/uuid v1.6.0
	github.com/robfig/cron/v3 v3.0.1
	github.com/xuri/excelize/v2 v2.10.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.47.0
	golang.org/x/time v0.16.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	github.com/duckdb/duckdb-go-bindings v0.3.5 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-amd64 v0.3.5 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-arm64 v0.3.5 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-amd64 v0.3.5 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-arm64 v0.3.5 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/windows-amd64 v0.3.5 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/google/flatbuffers v25.12.19+incompatible // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.29 // indirect
	github.com/richardlehane/mscfb v1.0.6 // indirect
	github.com/richardlehane/msoleps v1.0.6 // indirect
	github.com/tiendc/go-deepcopy v1.7.2 // indirect
	github.com/xuri/efp v0.0.1 // indirect
	github.com/xuri/nfp v0.0.2-0.20250530014748-2ddeb826f9a9 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/exp v0.0.0-20260112195511-716be5621a96 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
