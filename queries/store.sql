-- The statements of package store: what it asks of a database file and of
-- the run's members. Named blocks, read with queries.Must.

-- name: TablesAndViews
-- Every table and view of the opened file, by schema, in order: a file
-- holding reconcile's run log is one of ours, a file holding other tables
-- is another program's and is left alone.
SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT internal
UNION ALL
SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
ORDER BY ALL

-- name: ColumnTypes
-- The columns of table ? with their types: a bulk load's declared columns
-- are checked against them once per store.
SELECT column_name, data_type FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?

-- name: MemberSizes
-- The members run ? reconciled, in merchant ID order, each with its
-- records (payments, transactions and journal lines): what the slices of
-- the checks are cut from.
SELECT rm.merchant_id, coalesce(p.n, 0) + coalesce(t.n, 0) + coalesce(j.n, 0)
FROM run_members rm
LEFT JOIN (SELECT merchant_id, count(*) AS n FROM subscription_payments GROUP BY ALL) p USING (merchant_id)
LEFT JOIN (SELECT merchant_id, count(*) AS n FROM transactions GROUP BY ALL) t USING (merchant_id)
LEFT JOIN (SELECT merchant_id, count(*) AS n FROM journal GROUP BY ALL) j USING (merchant_id)
WHERE rm.run_id = ? AND rm.status = 'ok'
ORDER BY rm.merchant_id

-- name: DuckDBMemory
-- The bytes DuckDB's buffer manager holds now, over every tag (base tables,
-- hash tables, the write-ahead log, ...): the run's per-stage memory report.
SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()

-- name: LargestTableRows
-- The rows of the file's largest table, as DuckDB estimates them: how
-- many row groups a scan of it can share between threads
-- (Store.FitThreadsToData).
SELECT coalesce(max(estimated_size), 0) FROM duckdb_tables() WHERE database_name = current_database() AND NOT internal

-- name: SchemaObjects
-- Whether the file has a schema_digest table (an older version's file, or
-- a new one, has none: asked here first, since a query of a table that does
-- not exist costs DuckDB a search of its catalog for names like it), and
-- how many tables and views it holds.
SELECT count(*) FILTER (WHERE name = 'schema_digest'), count(*)
FROM (SELECT table_name AS name FROM duckdb_tables()
      WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
      UNION ALL
      SELECT view_name FROM duckdb_views()
      WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal)

-- name: SchemaDigest
-- The digest of the schema last applied to the file and the tables and
-- views it held then (store.Open).
SELECT digest, coalesce(objects, -1) FROM schema_digest

-- name: ClearSchemaDigest
-- Before the digest of the schema just applied is recorded.
DELETE FROM schema_digest

-- name: RecordSchemaDigest
-- The digest ($1) of the schema just applied and the tables and views the
-- file holds with it ($2), in the same transaction.
INSERT INTO schema_digest (digest, objects) VALUES ($1, $2)
