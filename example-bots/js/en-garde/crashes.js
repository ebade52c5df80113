// Not a twin: shows how an uncaught exception is reported (in round 2 it
// reads a property of null). The forfeit's reason is the exception's message
// and where it was thrown.
import { Bot, exportsFor } from 'arena-bot/en-garde';

class Crashes extends Bot {
  chooseMove(view) {
    if (view.round >= 2) {
      const nothing = null;
      return nothing.card;
    }
    return view.legalMoves[0];
  }
}

export const { startGame, startRound, chooseMove } = exportsFor(Crashes);
