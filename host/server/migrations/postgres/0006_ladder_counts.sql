-- Finished ladder matches folded into counts (issue 48): the rating fit
-- needs only how often each game's result happened per group of entrants,
-- so a match's row is folded into these counts once finished, and the row
-- itself is deleted once no page can link it (see docs/server.md, "The
-- ladder"). The SQLite migration has the same table.
CREATE TABLE ladder_counts (
    -- The match's entrants, as `ladder_matches.entrants` has them.
    entrants TEXT NOT NULL,
    -- Who played the results (0: a server), and whether a server played
    -- them again and got the same: a disabled worker's counts are deleted.
    played_by BIGINT NOT NULL,
    verified BIGINT NOT NULL,
    -- '' for the matches themselves; else one game's result as JSON: who
    -- sat where (entrant indices), the winning seat, finishing positions.
    game TEXT NOT NULL,
    -- Matches (game = ''), or games with this result.
    n BIGINT NOT NULL,
    -- Matches whose games are all duels, and the sum and the sum of squares
    -- of their first entrant's mean score: the workers' statistical check.
    scored BIGINT NOT NULL DEFAULT 0,
    score DOUBLE PRECISION NOT NULL DEFAULT 0,
    squares DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (entrants, played_by, verified, game)
);

-- A finished match whose result is in `ladder_counts` (its row stays while a page may link it).
ALTER TABLE ladder_matches ADD COLUMN folded BIGINT NOT NULL DEFAULT 0;

-- The finished matches still to fold, found without reading the kept ones.
CREATE INDEX ladder_unfolded ON ladder_matches (id) WHERE folded = 0;
