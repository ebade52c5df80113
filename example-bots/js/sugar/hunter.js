// Twin of house:hunter: kills when it can, else closes in on the nearest enemy.
import { Bot, PASS, enemiesNextTo, exportsFor, killsAfter, legalMoves, move, sugarAt } from 'arena-bot/sugar';

const DEADLY = 100000;

class Hunter extends Bot {
  chooseAction(view) {
    const enemies = view.agents.filter((a) => a.owner !== view.seat);
    let best = null;
    for (const [agent, direction, to] of legalMoves(view)) {
      let nearest = enemies.length === 0 ? 0 : Infinity;
      for (const e of enemies) nearest = Math.min(nearest, Math.abs(to[0] - e.x) + Math.abs(to[1] - e.y));
      const kills = killsAfter(view, agent.id, to);
      let value = kills * 1000 - nearest * 10 + sugarAt(view, to[0], to[1]);
      if (kills === 0 && enemiesNextTo(view, to[0], to[1]) >= 2) value -= DEADLY;
      if (best === null || value > best[0]) best = [value, move(agent.id, direction)];
    }
    return best === null ? PASS : best[1];
  }
}

export const { place, chooseAction } = exportsFor(Hunter);
