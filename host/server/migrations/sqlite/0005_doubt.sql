-- A worker's results are checked by a share that falls with how many it has
-- returned since it was last in doubt (issue 48): a doubt (a malformed
-- result, another engine at hello, results that the statistics find
-- unlikely) sets these to its counts then, so the share starts over.
ALTER TABLE workers ADD COLUMN matches_at_doubt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN jobs_at_doubt INTEGER NOT NULL DEFAULT 0;
-- Why it was last in doubt, for the teacher's health panel.
ALTER TABLE workers ADD COLUMN doubt TEXT;
