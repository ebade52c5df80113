// Twin of house:random: a random placement, then uniformly random legal moves.
import { Rng } from 'arena-bot';
import { Bot, exportsFor, legalMoves, move } from 'arena-bot/sugar';

class RandomMover extends Bot {
  place(info) {
    this.rng = new Rng(info.seed);
    const xs = [0, 1, 2, 3, 4];
    for (let i = xs.length - 1; i > 0; i--) { // Fisher-Yates with the house bot's draws
      const j = this.rng.randomRange(i + 1);
      [xs[i], xs[j]] = [xs[j], xs[i]];
    }
    return xs;
  }
  chooseAction(view) {
    const [agent, direction] = this.rng.choice(legalMoves(view));
    return move(agent.id, direction);
  }
}

export const { place, chooseAction } = exportsFor(RandomMover);
