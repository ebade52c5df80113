// Not a twin: shows that a bot has no network. componentize-js links the
// fetch API (wasi:http) into every default build; the arena lets such a
// bot load, and the first real use ends its game with a clear reason.
import { Bot, exportsFor } from 'arena-bot/en-garde';

class Fetches extends Bot {
  chooseMove(view) {
    fetch('http://example.com/answer');
    return view.legalMoves[0];
  }
}

export const { startGame, startRound, chooseMove } = exportsFor(Fetches);
