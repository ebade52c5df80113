// Twin of house:random: a uniformly random legal move, seeded by the game.
import { Rng } from 'arena-bot';
import { Bot, exportsFor } from 'arena-bot/en-garde';

class RandomFencer extends Bot {
  constructor(info) {
    super(info);
    this.rng = new Rng(info.seed);
  }
  chooseMove(view) {
    return this.rng.choice(view.legalMoves);
  }
}

export const { startGame, startRound, chooseMove } = exportsFor(RandomFencer);
