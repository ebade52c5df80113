-- The ladder: matches between the students' counted versions and the house
-- bots, played by the server's own pool or by external workers; the workers
-- and their tokens; course-wide switches; each version's test against the
-- version before it. The SQLite migration has the same tables.
CREATE TABLE ladder_matches (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The entrants, comma-separated: `s<submission id>` or `house:<name>`.
    entrants TEXT NOT NULL,
    -- Games the match plays (whole seat rotations of its deals).
    games BIGINT NOT NULL,
    -- Higher is claimed first: a new version's first matches before the rest.
    priority BIGINT NOT NULL DEFAULT 0,
    -- queued, leased, done
    state TEXT NOT NULL,
    -- Who holds the lease: a worker's id, NULL for a server's own pool.
    worker_id BIGINT,
    -- A secret of the lease: only its holder's result is taken.
    lease TEXT,
    lease_until TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    -- The result (JSON): every game and each entrant's fuel.
    outcome TEXT,
    -- Who played the result that counts (NULL: a server).
    played_by BIGINT,
    -- A server played it again and got the same result.
    verified BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX ladder_waiting ON ladder_matches (state, priority, id);

CREATE TABLE workers (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL,
    -- SHA-256 of the worker's token, hex.
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    last_seen TEXT,
    -- What the worker said it runs, at its last hello.
    engine TEXT,
    -- Matches whose results were taken.
    matches BIGINT NOT NULL DEFAULT 0,
    -- Revoked by the teacher or disabled for a result that did not replay.
    disabled_at TEXT,
    reason TEXT
);

-- Course-wide switches the teacher sets from the pages (pseudonyms, freeze).
CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The new version against the one before it, as a sequential test (JSON).
ALTER TABLE submissions ADD COLUMN versus_json TEXT;

-- The version's last standing on the ladder (JSON: rating, interval, games),
-- kept once it leaves the ladder, for the student's history.
ALTER TABLE submissions ADD COLUMN ladder_json TEXT;
