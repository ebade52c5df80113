// Twin of house:greedy: the most sugar it can reach this move, else the richest cell.
import { Bot, PASS, SIZE, agentAt, enemiesNextTo, exportsFor, legalMoves, move, sugarAt } from 'arena-bot/sugar';

const DEADLY = 100000; // ending where two enemies can kill the mover next turn

class Greedy extends Bot {
  chooseAction(view) {
    let target = [0, 0], most = 0;
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        const s = sugarAt(view, x, y);
        if (s > most && agentAt(view, x, y) === null) { most = s; target = [x, y]; }
      }
    }
    let best = null;
    for (const [agent, direction, to] of legalMoves(view)) {
      let value = sugarAt(view, to[0], to[1]) * 100 - Math.abs(to[0] - target[0]) - Math.abs(to[1] - target[1]);
      if (enemiesNextTo(view, to[0], to[1]) >= 2) value -= DEADLY;
      if (best === null || value > best[0]) best = [value, move(agent.id, direction)];
    }
    return best === null ? PASS : best[1];
  }
}

export const { place, chooseAction } = exportsFor(Greedy);
