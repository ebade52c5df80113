//! arena-competition: tournaments between bots (round robin, Swiss,
//! brackets), their fitted ratings and standings, and the journal that
//! lets a stopped tournament resume; the ladder's matchmaking.

pub mod ladder;
pub mod tournament;
