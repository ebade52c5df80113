//! The default limits of each game: fuel per move, bank and start
//! allowance, with the measurements that set them.

use crate::sandbox::Limits;

/// The default limits of En Garde and ConnectFwar; the measurements behind
/// them are in each game's rules document. Per move 500M fuel: at least 100
/// times what every example twin used at most in a move, in every language
/// (under fuel prices 2 the most: a componentize-js ConnectFwar bot, 3.84M),
/// and about 35 ms of a fast machine's time. Start as much as a move
/// (the start allowance may not be less): 230 times what the slowest twin
/// needs to start (2.1M). Bank 200M: room to overdraw, for a bot that
/// searches deeper at times.
pub const TURN_LIMITS: Limits = Limits {
    fuel: 500_000_000,
    bank: 200_000_000,
    start_fuel: 500_000_000,
    ..Limits::DEFAULT
};

/// President's default limits: a table's turns cost interpreted bots more
/// (componentize-js twins used up to 16.3M in a move under fuel prices 2),
/// so 2G per move keeps a 100-fold headroom (about 140 ms at most). A call of 2.2G takes
/// at most 1.4 s at the worst measured rate: the backstop is 6 s.
pub const PRESIDENT_LIMITS: Limits = Limits {
    fuel: 2_000_000_000,
    start_fuel: 2_000_000_000,
    timeout: std::time::Duration::from_secs(6),
    ..TURN_LIMITS
};
