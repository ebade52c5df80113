//! Parsers for limits given on the command line, with one-line errors.

use std::time::Duration;

/// A positive integer (fuel, games).
pub fn parse_positive_u64(s: &str) -> Result<u64, String> {
    let v: u64 = s
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{s}` is not a positive whole number"))?;
    if v == 0 {
        return Err("must be greater than zero".into());
    }
    Ok(v)
}

/// A whole number, zero allowed (a fuel bank).
pub fn parse_u64(s: &str) -> Result<u64, String> {
    s.replace('_', "")
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))
}

/// `course` or `forfeit`: what an illegal move costs.
pub fn parse_illegal(s: &str) -> Result<arena_games::IllegalMoves, String> {
    match s {
        "course" => Ok(arena_games::IllegalMoves::Course),
        "forfeit" => Ok(arena_games::IllegalMoves::Forfeit),
        _ => Err(format!(
            "`{s}` is not a rule for illegal moves; use `course` (each game's own rule) or `forfeit`"
        )),
    }
}

/// Most games one command may ask for: the runner's own bound.
pub const MAX_GAMES: u64 = arena_runner::runner::MAX_GAMES as u64;

/// A number of games: positive, at most [`MAX_GAMES`].
pub fn parse_games(s: &str) -> Result<u64, String> {
    let g = parse_positive_u64(s)?;
    if g > MAX_GAMES {
        return Err(format!("at most {MAX_GAMES} games"));
    }
    Ok(g)
}

/// A size in bytes: `1048576`, `64K`, `64M`, `1G` (also `KiB`, `MiB`, `GiB`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit() && c != '_').unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: u64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{s}` is not a size (use bytes, or a number with K, M or G)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("`{s}` has an unknown unit (use K, M or G)")),
    };
    let v = n.checked_mul(mult).ok_or_else(|| format!("`{s}` is too large"))?;
    if v == 0 {
        return Err("must be greater than zero".into());
    }
    Ok(v)
}

/// The most memory a bot can use: a wasm32 memory addresses at most 4 GiB.
pub const MAX_MEMORY: u64 = arena_sandbox::MAX_MEMORY_BYTES;

/// A memory cap: a size (see [`parse_bytes`]) of at most [`MAX_MEMORY`].
pub fn parse_memory(s: &str) -> Result<u64, String> {
    let v = parse_bytes(s)?;
    if v > MAX_MEMORY {
        return Err(format!(
            "`{s}` is more than a bot can use: a wasm32 bot addresses at most 4G of memory, so give at most 4G"
        ));
    }
    Ok(v)
}

/// A positive duration in seconds, fractions allowed: `3`, `0.5`.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_nan() || v <= 0.0 || !v.is_finite() {
        return Err("must be greater than zero".into());
    }
    if v > 3600.0 {
        return Err("must be at most 3600 seconds".into());
    }
    Ok(Duration::from_secs_f64(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_bytes("64M"), Ok(64 << 20));
        assert_eq!(parse_bytes("1GiB"), Ok(1 << 30));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("-5").is_err());
        assert!(parse_bytes("12Q").is_err());
    }

    #[test]
    fn memory_is_at_most_what_wasm32_addresses() {
        assert_eq!(parse_memory("4G"), Ok(4 << 30));
        assert_eq!(parse_memory("64M"), Ok(64 << 20));
        assert!(parse_memory("4097M").is_err());
        assert!(parse_memory("1000G").is_err());
        assert!(parse_memory("0").is_err());
    }

    #[test]
    fn seconds_must_be_positive() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("NaN").is_err());
    }

    #[test]
    fn counts_must_be_positive() {
        assert_eq!(parse_positive_u64("1_000"), Ok(1000));
        assert!(parse_positive_u64("0").is_err());
        assert!(parse_positive_u64("-3").is_err());
    }
}
