// En Garde (docs/rules/en-garde.md). The view is the world's own record:
// view.hand, view.myPosition, view.opponentPosition, view.legalMoves (every
// legal move, as the referee computes them: {card, direction}), view.lastMove
// and the rest of wit/0.2.0/en-garde.wit, in camelCase.
import { checkSeed, guarded } from './host.js';

export const STRIP = 23;

/** One game's player: override chooseMove; startRound is optional. */
export class Bot {
  constructor(info) { this.info = info; }
  startRound(_info) {}
  chooseMove(_view) { throw new Error('your bot must define chooseMove(view)'); }
}

/** The space `move` ends on, or null when it leaves the strip. */
export function landing(view, move) {
  const step = move.direction === 'forward' ? move.card : -move.card;
  const to = view.myPosition + (view.seat === 0 ? step : -step);
  return to >= 0 && to < STRIP ? to : null;
}

/** Spaces between the fencers after `move`: 0 is a hit, 255 off the strip. */
export function distanceAfter(view, move) {
  const to = landing(view, move);
  return to === null ? 255 : Math.abs(to - view.opponentPosition);
}

/** The functions your file exports: `export const { startGame, startRound, chooseMove } = exportsFor(MyBot);` */
export function exportsFor(BotClass) {
  let bot = null;
  return {
    startGame: (info) => { checkSeed(info); bot = guarded(() => new BotClass(info)); },
    startRound: (info) => guarded(() => bot.startRound(info)),
    chooseMove: (view) => guarded(() => bot.chooseMove(view)),
  };
}
