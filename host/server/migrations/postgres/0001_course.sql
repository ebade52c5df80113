-- The course's people, submissions and the durable job queue (Postgres).
-- Times are RFC 3339 text in UTC; the SQLite migration has the same tables.
CREATE TABLE people (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The school's id for a student; `teacher` for the teacher.
    school_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    is_teacher BOOLEAN NOT NULL DEFAULT FALSE,
    -- SHA-256 of the login secret, hex: the secret itself is never stored.
    token_hash TEXT NOT NULL UNIQUE,
    -- The version the student chose to count (NULL: the latest before the deadline).
    counted BIGINT,
    removed BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TEXT NOT NULL
);

CREATE TABLE submissions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    person_id BIGINT NOT NULL REFERENCES people (id),
    version BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    size BIGINT NOT NULL,
    file_name TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    -- Whole days after the deadline (0 on time).
    late_days BIGINT NOT NULL DEFAULT 0,
    -- queued, running, accepted, rejected, failed
    state TEXT NOT NULL,
    toolchain TEXT,
    check_json TEXT,
    check_text TEXT,
    grade_json TEXT,
    grade_text TEXT,
    score DOUBLE PRECISION,
    max_score DOUBLE PRECISION,
    -- One line for the student: why it was rejected, or why the arena failed.
    reason TEXT,
    finished_at TEXT,
    UNIQUE (person_id, version)
);

CREATE TABLE jobs (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- grade: check and grade one submission.
    kind TEXT NOT NULL,
    submission_id BIGINT NOT NULL REFERENCES submissions (id),
    -- queued, running, done
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    -- Higher runs first (a student's upload before a re-grade of the class).
    priority BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
);

CREATE INDEX jobs_waiting ON jobs (state, priority, id);
CREATE INDEX submissions_of ON submissions (person_id, version);
