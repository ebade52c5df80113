// Sugargame (docs/rules/sugar.md). Cells are (x, y), 0-4, y = 0 the top row;
// view.sugar[y * 5 + x] is a cell's sugar; view.agents lists every live agent
// ({id, owner, x, y}); view.legalActions every legal action. The helpers
// answer what the house bots ask; they follow the referee's rules (rule 5:
// an agent with two or more enemies next to it dies), checked against it by
// the twin tests.
import { checkSeed, guarded } from './host.js';

export const SIZE = 5;
export const DIRECTIONS = ['up', 'down', 'left', 'right'];
const STEP = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

/** One game's player: override chooseAction; place is optional. */
export class Bot {
  constructor(info) { this.info = info; }
  /** The home-row x of each of your agents, in order (default 0, 1, 2, 3, 4). */
  place(info) { return Array.from(info.agents, (_, i) => i); }
  chooseAction(_view) { throw new Error('your bot must define chooseAction(view)'); }
}

/** The action that moves `agent` one cell in `direction`. */
export const move = (agent, direction) => ({ tag: 'move', val: { agent, direction } });
/** The pass action (legal only when no move is). */
export const PASS = { tag: 'pass' };

/** The cell next to (x, y) in `direction`, or null off the grid. */
export function neighbour(x, y, direction) {
  const [dx, dy] = STEP[direction];
  const nx = x + dx, ny = y + dy;
  return nx >= 0 && nx < SIZE && ny >= 0 && ny < SIZE ? [nx, ny] : null;
}

/** The sugar on cell (x, y). */
export const sugarAt = (view, x, y) => view.sugar[y * SIZE + x];

/** The live agent on (x, y), or null. */
export function agentAt(view, x, y) {
  return view.agents.find((a) => a.x === x && a.y === y) ?? null;
}

/** [agent, direction, [x, y] it lands on] for each legal move, in legalActions order. */
export function legalMoves(view) {
  const occupied = new Set(view.agents.map((a) => a.y * SIZE + a.x));
  const moves = [];
  for (const a of view.agents) {
    if (a.owner !== view.seat) continue;
    for (const d of DIRECTIONS) {
      const to = neighbour(a.x, a.y, d);
      if (to !== null && !occupied.has(to[1] * SIZE + to[0])) moves.push([a, d, to]);
    }
  }
  return moves;
}

/** How many of the other side's agents stand next to (x, y). */
export function enemiesNextTo(view, x, y) {
  let count = 0;
  for (const d of DIRECTIONS) {
    const cell = neighbour(x, y, d);
    const a = cell && agentAt(view, cell[0], cell[1]);
    if (a && a.owner !== view.seat) count++;
  }
  return count;
}

/** How many enemy agents moving `agent` to cell `to` would kill (rule 5). */
export function killsAfter(view, agent, to) {
  const moved = view.agents.map((a) => (a.id === agent ? { ...a, x: to[0], y: to[1] } : a));
  const at = (x, y) => moved.find((a) => a.x === x && a.y === y);
  let kills = 0;
  for (const a of moved) {
    if (a.id === agent || a.owner === view.seat) continue;
    let hostile = 0;
    for (const d of DIRECTIONS) {
      const n = neighbour(a.x, a.y, d);
      const b = n && at(n[0], n[1]);
      if (b && b.owner !== a.owner) hostile++;
    }
    if (hostile >= 2) kills++;
  }
  return kills;
}

/** The functions your file exports: `export const { place, chooseAction } = exportsFor(MyBot);` */
export function exportsFor(BotClass) {
  let bot = null;
  return {
    place: (info) => guarded(() => {
      checkSeed(info);
      bot = new BotClass(info);
      return Uint8Array.from(bot.place(info));
    }),
    chooseAction: (view) => guarded(() => bot.chooseAction(view)),
  };
}
