use crate::{is, strike};
use arena_bot_sdk::president::{Bot, Card, GameInfo, View};

const JOKER: Card = Card { rank: 0, suit: 0 };

struct Corpus;

impl Bot for Corpus {
    fn new(_info: &GameInfo) -> Self {
        strike("president-start");
        Corpus
    }

    fn play(&mut self, view: &View) -> Option<Vec<Card>> {
        strike("president-play");
        let first = view.hand[0];
        if is("president-play-not-in-hand") {
            let missing = (3..=14u8)
                .flat_map(|rank| (1..=4u8).map(move |suit| Card { rank, suit }))
                .find(|c| !view.hand.contains(c))?;
            return Some(vec![missing]);
        }
        if is("president-play-hundred-cards") {
            return Some(vec![first; 100]);
        }
        if is("president-play-jokers-mixed") {
            // A Joker with another card if it holds one; else two face values
            // (3s are wildcards, so none of them).
            let other = view.hand.iter().copied().find(|&c| c != JOKER)?;
            if view.hand.contains(&JOKER) {
                return Some(vec![JOKER, other]);
            }
            let plain: Vec<Card> = view.hand.iter().copied().filter(|c| c.rank != 3).collect();
            let second = plain.iter().copied().find(|c| c.rank != plain[0].rank)?;
            return Some(vec![plain[0], second]);
        }
        if is("president-play-huge") {
            return Some(vec![first; 1_000_000]);
        }
        view.legal_plays().first().cloned()
    }
}

arena_bot_sdk::export!(president, Corpus);
