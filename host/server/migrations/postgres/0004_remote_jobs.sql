-- Grading jobs and version tests that external workers run (with
-- `arena serve --workers 0` they run nowhere else): who holds a job and
-- until when, what a worker returned while the server checks it by doing
-- the job again, and who did the job whose verdict counts.
ALTER TABLE jobs ADD COLUMN worker_id BIGINT;
ALTER TABLE jobs ADD COLUMN lease TEXT;
ALTER TABLE jobs ADD COLUMN lease_until TEXT;
-- A worker's verdict (JSON) waiting to be checked; state is then 'checking'.
ALTER TABLE jobs ADD COLUMN result TEXT;
-- The worker whose verdict counts (NULL: a server).
ALTER TABLE jobs ADD COLUMN done_by BIGINT;
ALTER TABLE jobs ADD COLUMN verified BIGINT NOT NULL DEFAULT 0;
