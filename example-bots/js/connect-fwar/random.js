// Twin of house:random: a random column 0-3, whether or not the card fits.
import { Rng } from 'arena-bot';
import { Bot, exportsFor } from 'arena-bot/connect-fwar';

class Random extends Bot {
  constructor(info) {
    super(info);
    this.rng = new Rng(info.seed);
  }
  chooseColumn() {
    return this.rng.randomRange(4);
  }
}

export const { startGame, chooseColumn } = exportsFor(Random);
