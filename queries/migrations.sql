-- Changes to the working database made after schema.sql's tables first
-- shipped. schema.sql creates a new file's tables; this file brings an
-- existing file to the same shape. Every statement is idempotent (IF NOT
-- EXISTS, OR REPLACE, or a backfill that matches no row once done), so it
-- runs after schema.sql on every open.

-- Day over day: each of a run's findings says whether it is new since the
-- previous run or still open, and findings of the previous run that are gone
-- are kept under the run as resolved. Rows written before the column existed
-- get new or open from their first_seen_run.
ALTER TABLE findings ADD COLUMN IF NOT EXISTS state VARCHAR;
UPDATE findings SET state = CASE WHEN first_seen_run = run_id THEN 'new' ELSE 'open' END
WHERE state IS NULL;

-- The run a run's findings were compared with, so reports need not work out
-- "previous" again (and could not, once later runs exist).
ALTER TABLE runs ADD COLUMN IF NOT EXISTS previous_run VARCHAR;

-- The finding kinds of the catalog (queries/findings/*.sql), refreshed by
-- every run, so that SQL users and BI tools can join a kind to its meaning.
CREATE TABLE IF NOT EXISTS finding_kinds (
    kind        VARCHAR PRIMARY KEY,
    position    INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    action      VARCHAR NOT NULL
);

-- A run's findings without the resolved ones: what "the findings of run X"
-- meant before resolved rows existed.
CREATE OR REPLACE VIEW current_findings AS
SELECT * FROM findings WHERE state IN ('new', 'open');
