// Twin of house:ranks: the column numbered (rank - 1) mod 4.
import { Bot, exportsFor } from 'arena-bot/connect-fwar';

class Ranks extends Bot {
  chooseColumn(view) {
    return (view.card.rank - 1) % 4;
  }
}

export const { startGame, chooseColumn } = exportsFor(Ranks);
