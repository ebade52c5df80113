// Twin of house:lowest: the weakest legal play, fewest cards first; pass when none.
import { Bot, exportsFor, simplePlays } from 'arena-bot/president';

class Lowest extends Bot {
  play(view) {
    return simplePlays(view)[0];
  }
}

export const { startGame, play } = exportsFor(Lowest);
