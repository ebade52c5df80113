// Twin of house:aggressive: the legal move that ends closest to the opponent.
import { Bot, distanceAfter, exportsFor } from 'arena-bot/en-garde';

class Aggressive extends Bot {
  chooseMove(view) {
    let best = view.legalMoves[0];
    for (const m of view.legalMoves) if (distanceAfter(view, m) < distanceAfter(view, best)) best = m;
    return best;
  }
}

export const { startGame, startRound, chooseMove } = exportsFor(Aggressive);
