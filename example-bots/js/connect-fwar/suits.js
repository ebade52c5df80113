// Twin of house:suits: the column numbered suit - 1.
import { Bot, exportsFor } from 'arena-bot/connect-fwar';

class Suits extends Bot {
  chooseColumn(view) {
    return view.card.suit - 1;
  }
}

export const { startGame, chooseColumn } = exportsFor(Suits);
