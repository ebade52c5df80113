// Twin of house:basic: the first column, left to right, where the card fits.
import { Bot, exportsFor } from 'arena-bot/connect-fwar';

class Basic extends Bot {
  chooseColumn(view) {
    return view.legalColumns.length > 0 ? view.legalColumns[0] : 0;
  }
}

export const { startGame, chooseColumn } = exportsFor(Basic);
