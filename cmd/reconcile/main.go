package main

import (
	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/robfig/cron/v3"
	_ "github.com/xuri/excelize/v2"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/time/rate"
)

func main() {}
