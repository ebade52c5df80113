// ConnectFwar (docs/rules/connect-fwar.md): view.card is the card drawn
// ({rank, suit}), view.columns the four columns bottom-up, view.legalColumns
// where it fits; any other number discards it.
import { checkSeed, guarded } from './host.js';

/** One game's player: override chooseColumn. */
export class Bot {
  constructor(info) { this.info = info; }
  chooseColumn(_view) { throw new Error('your bot must define chooseColumn(view)'); }
}

/** The functions your file exports: `export const { startGame, chooseColumn } = exportsFor(MyBot);` */
export function exportsFor(BotClass) {
  let bot = null;
  return {
    startGame: (info) => { checkSeed(info); bot = guarded(() => new BotClass(info)); },
    chooseColumn: (view) => guarded(() => bot.chooseColumn(view)),
  };
}
