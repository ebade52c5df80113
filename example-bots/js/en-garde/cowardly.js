// Twin of house:cowardly: the legal move that ends farthest from the opponent.
import { Bot, distanceAfter, exportsFor } from 'arena-bot/en-garde';

class Cowardly extends Bot {
  chooseMove(view) {
    let best = view.legalMoves[0];
    for (const m of view.legalMoves) if (distanceAfter(view, m) > distanceAfter(view, best)) best = m;
    return best;
  }
}

export const { startGame, startRound, chooseMove } = exportsFor(Cowardly);
