// President (docs/rules/president.md): view.hand is your hand weakest first
// ({rank, suit}), view.state the cards to beat (empty when you lead),
// view.legalPlays every legal play. Return an array of cards, or undefined
// to pass (legal only when view.state is not empty).
import { checkSeed, guarded } from './host.js';

export const TWO = 2;
export const WILD = 3;

/** [order, suit]: 3s (wild) above Aces, 2s above them, the Joker on top. */
export function strength(card) {
  if (card.rank === 0) return [100, 0];
  if (card.rank === TWO) return [90, card.suit];
  if (card.rank === WILD) return [80, card.suit];
  return [card.rank, card.suit];
}

/** One game's player: override play. */
export class Bot {
  constructor(info) { this.info = info; }
  play(_view) { throw new Error('your bot must define play(view)'); }
}

/** True when you lead the round (and so may not pass). */
export const leading = (view) => view.state.length === 0;

const key = (cards) => cards.map((c) => `${c.rank}.${c.suit}`).join(' ');

/**
 * The plays the house bots consider, weakest first: for each rank held, its
 * 1 to n lowest-suited cards (no wildcards mixed in), and the Joker; only
 * those legal now.
 */
export function simplePlays(view) {
  const byRank = new Map();
  for (const c of view.hand) {
    if (c.rank === 0) continue;
    if (!byRank.has(c.rank)) byRank.set(c.rank, []);
    byRank.get(c.rank).push(c);
  }
  const plays = [];
  for (const cards of byRank.values()) {
    cards.sort((a, b) => strength(a)[0] - strength(b)[0] || strength(a)[1] - strength(b)[1]);
    for (let n = 1; n <= cards.length; n++) plays.push(cards.slice(0, n));
  }
  if (view.hand.some((c) => c.rank === 0)) plays.push([{ rank: 0, suit: 0 }]);
  const order = (p) => [strength(p[0])[0], p.length, Math.max(...p.map((c) => strength(c)[1]))];
  plays.sort((a, b) => {
    const x = order(a), y = order(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  const legal = new Set(view.legalPlays.map(key));
  return plays.filter((p) => legal.has(key(p)));
}

/** The functions your file exports: `export const { startGame, play } = exportsFor(MyBot);` */
export function exportsFor(BotClass) {
  let bot = null;
  return {
    startGame: (info) => { checkSeed(info); bot = guarded(() => new BotClass(info)); },
    play: (view) => guarded(() => bot.play(view)),
  };
}
