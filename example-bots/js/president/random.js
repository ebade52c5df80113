// Twin of house:random: a uniformly random legal play, or a pass when following.
import { Rng } from 'arena-bot';
import { Bot, exportsFor, leading, simplePlays } from 'arena-bot/president';

class Random extends Bot {
  constructor(info) {
    super(info);
    this.rng = new Rng(info.seed);
  }
  play(view) {
    const options = simplePlays(view);
    if (!leading(view)) options.push(undefined);
    if (options.length === 0) return undefined;
    return options[this.rng.randomRange(options.length)];
  }
}

export const { startGame, play } = exportsFor(Random);
