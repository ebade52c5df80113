// Write arena bots in JavaScript. Each game has a module ('arena-bot/en-garde',
// 'connect-fwar', 'sugar', 'president') with a `Bot` class to extend, helpers,
// and `exportsFor(MyBot)`, whose result your file exports:
//
//   import { Bot, exportsFor, distanceAfter } from 'arena-bot/en-garde';
//   class Lunge extends Bot {
//     chooseMove(view) { ... return one of view.legalMoves ... }
//   }
//   export const { startGame, startRound, chooseMove } = exportsFor(Lunge);
//
// Every game gets a fresh instance, so a `Bot` lives exactly one game.
export { Rng } from './rng.js';
export { budget, limits, log } from './host.js';
