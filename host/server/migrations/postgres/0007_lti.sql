-- LTI 1.3 (issue 50): the LMS platforms that launch this course, the
-- launches in flight, and the people who came from them. The SQLite
-- migration has the same tables. Expiry times are Unix seconds.

-- A platform as the teacher registered it (`arena course lti DIR
-- --add-platform`) or as Dynamic Registration made it.
CREATE TABLE lti_platforms (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    -- The platform's OIDC authorisation endpoint, token endpoint and keys.
    auth_url TEXT NOT NULL,
    token_url TEXT NOT NULL,
    jwks_url TEXT NOT NULL,
    -- The `aud` of our client assertions when it is not the token URL (D2L).
    audience TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (issuer, client_id)
);

-- The deployments of a platform allowed to launch (a launch from any other is refused).
CREATE TABLE lti_deployments (
    platform_id BIGINT NOT NULL REFERENCES lti_platforms (id),
    deployment_id TEXT NOT NULL,
    PRIMARY KEY (platform_id, deployment_id)
);

-- A login in flight: the state sent to the platform (its hash), the nonce
-- the id_token must carry, and the browser that started it (the hash of
-- its `arena_lti` cookie).
CREATE TABLE lti_states (
    state_hash TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    platform_id BIGINT NOT NULL REFERENCES lti_platforms (id),
    browser_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- Nonces of accepted launches, kept until their id_token expires: a replayed id_token is refused.
CREATE TABLE lti_nonces (
    platform_id BIGINT NOT NULL,
    nonce TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (platform_id, nonce)
);

-- Who a platform's user (`sub`) is in this course.
CREATE TABLE lti_users (
    platform_id BIGINT NOT NULL REFERENCES lti_platforms (id),
    sub TEXT NOT NULL,
    person_id BIGINT NOT NULL REFERENCES people (id),
    -- The LMS's roles, space-separated, and Active, Inactive or Deleted (NRPS).
    roles TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'Active',
    seen_at TEXT NOT NULL,
    PRIMARY KEY (platform_id, sub)
);

-- One-time codes a launch inside the LMS's frame gives to open the course
-- in a window of its own (the session cookie is SameSite=Strict).
CREATE TABLE lti_enter (
    code_hash TEXT PRIMARY KEY,
    person_id BIGINT NOT NULL REFERENCES people (id),
    expires_at BIGINT NOT NULL
);

-- The services of each platform's course, from its launches: Assignment
-- and Grade Services (the line item of the assignment, from the launch's
-- claim or made by the tool) and Names and Role Provisioning (the roster).
CREATE TABLE lti_line_items (
    platform_id BIGINT PRIMARY KEY REFERENCES lti_platforms (id),
    lineitems_url TEXT,
    lineitem_url TEXT,
    resource_link_id TEXT NOT NULL,
    memberships_url TEXT
);

-- Scores to give the LMS, a durable queue: one row per change of a
-- student's grade, sent in order; its timestamp is when arena's grade
-- changed, so an older score never replaces a newer one in the LMS.
CREATE TABLE lti_scores (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform_id BIGINT NOT NULL REFERENCES lti_platforms (id),
    sub TEXT NOT NULL,
    person_id BIGINT NOT NULL REFERENCES people (id),
    score_given DOUBLE PRECISION NOT NULL,
    score_maximum DOUBLE PRECISION NOT NULL,
    comment TEXT NOT NULL,
    -- RFC 3339 with milliseconds, strictly increasing per student.
    stamp TEXT NOT NULL,
    -- waiting, sent, or superseded (a newer score of the student came first).
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_try_at BIGINT NOT NULL,
    last_error TEXT,
    sent_at TEXT
);

CREATE INDEX lti_scores_due ON lti_scores (state, next_try_at);
CREATE INDEX lti_scores_of ON lti_scores (platform_id, sub, id);

-- Registration URLs the teacher made (`arena course lti DIR --registration-url`):
-- an LMS's Dynamic Registration may use each once, before it expires.
CREATE TABLE lti_registrations (
    secret_hash TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
