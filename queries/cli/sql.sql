-- What `reconcile sql --tables` runs (internal/cli/cmd_sql.go) on the
-- file it opens read-only: the description of every table, view and
-- column is its DuckDB COMMENT (queries/comments.sql).

-- name: Tables
-- The file's tables and views, with what each holds. No parameters.
SELECT name, type, description FROM (
    SELECT table_name AS name, 'table' AS type, coalesce(comment, '') AS description
    FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
    UNION ALL
    SELECT view_name, 'view', coalesce(comment, '')
    FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
) ORDER BY type, name

-- name: ColumnCount
-- How many columns the table or view has: 0 when there is none of that
-- name. $1 = the table or view.
SELECT count(*) FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1

-- name: Columns
-- The columns of one table or view, in order, with their type, whether
-- they may be null, and what each means. $1 = the table or view.
SELECT column_name AS "column", data_type AS type,
       CASE WHEN is_nullable THEN '' ELSE 'not null' END AS "null", coalesce(comment, '') AS description
FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1
ORDER BY column_index

-- name: CheckRuns
-- What `reconcile sql --check` reads a check's run from: the runs of
-- business date $1 (NULL: the latest in the file), each with its window
-- written as a TIMESTAMPTZ literal, as the run set window_start and
-- window_end. Several runs of a date are the shards of one day.
SELECT run_id, CAST(business_date AS VARCHAR),
       strftime(window_start AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S+00'),
       strftime(window_end AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S+00')
FROM runs
WHERE business_date = coalesce(CAST($1 AS DATE), (SELECT max(business_date) FROM runs))
ORDER BY run_id
