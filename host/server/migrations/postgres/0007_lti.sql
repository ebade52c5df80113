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
