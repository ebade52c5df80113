"""Sugargame (docs/rules/sugar.md): subclass `Bot`, then `WitWorld = export(MyBot)`.

Cells are (x, y), 0-4, y = 0 the top row; `view.sugar[y * 5 + x]` is a
cell's sugar; `view.agents` lists every live agent; `view.legal_actions`
every legal action. The helpers below answer what the house bots ask; the
rules they follow are the referee's (rule 5: an agent with two or more
enemies next to it dies), checked against it by the twin tests.
"""

import wit_world
from wit_world.imports.sugar_types import (  # noqa: F401 (re-exported for bots)
    Action_Move,
    Action_Pass,
    Agent,
    AgentMove,
    Direction,
    PlaceInfo,
    View,
)

SIZE = 5
DIRECTIONS = (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT)
_STEP = {Direction.UP: (0, -1), Direction.DOWN: (0, 1), Direction.LEFT: (-1, 0), Direction.RIGHT: (1, 0)}


class Bot:
    """One game's player. Override `choose_action`; `place` is optional."""

    def __init__(self, info):
        self.info = info

    def place(self, info):
        """The home-row x of each of your agents, in order (default: 0, 1, 2, 3, 4)."""
        return bytes(range(len(info.agents)))

    def choose_action(self, view):
        """Return an action: `move(agent, direction)` (one of `view.legal_actions`)."""
        raise NotImplementedError("your bot must define choose_action(self, view)")


def move(agent, direction):
    """The action that moves `agent` one cell in `direction`."""
    return Action_Move(AgentMove(agent, direction))


def neighbour(x, y, direction):
    """The cell next to (x, y) in `direction`, or None off the grid."""
    dx, dy = _STEP[direction]
    nx, ny = x + dx, y + dy
    return (nx, ny) if 0 <= nx < SIZE and 0 <= ny < SIZE else None


def sugar_at(view, x, y):
    """The sugar on cell (x, y)."""
    return view.sugar[y * SIZE + x]


def agent_at(view, x, y):
    """The live agent on (x, y), or None."""
    for a in view.agents:
        if a.x == x and a.y == y:
            return a
    return None


def legal_moves(view):
    """(agent, direction, (x, y) it lands on) for each legal move, in `legal_actions` order."""
    occupied = {(a.x, a.y) for a in view.agents}
    moves = []
    for a in view.agents:
        if a.owner != view.seat:
            continue
        for d in DIRECTIONS:
            to = neighbour(a.x, a.y, d)
            if to is not None and to not in occupied:
                moves.append((a, d, to))
    return moves


def enemies_next_to(view, x, y):
    """How many of the other side's agents stand next to (x, y)."""
    count = 0
    for d in DIRECTIONS:
        cell = neighbour(x, y, d)
        if cell is not None:
            a = agent_at(view, *cell)
            if a is not None and a.owner != view.seat:
                count += 1
    return count


def kills_after(view, agent, to):
    """How many enemy agents moving `agent` to cell `to` would kill (rule 5)."""
    at = {}
    for a in view.agents:
        at[to if a.id == agent else (a.x, a.y)] = a
    kills = 0
    for cell, a in at.items():
        if a.id == agent or a.owner == view.seat:
            continue
        hostile = 0
        for d in DIRECTIONS:
            n = neighbour(cell[0], cell[1], d)
            b = at.get(n) if n is not None else None
            if b is not None and b.owner != a.owner:
                hostile += 1
        if hostile >= 2:
            kills += 1
    return kills


def export(bot_class):
    """The `WitWorld` class componentize-py exports, playing with `bot_class`."""
    game = {}

    class Exported(wit_world.WitWorld):
        def place(self, info):
            game["bot"] = bot_class(info)
            return bytes(game["bot"].place(info))

        def choose_action(self, view):
            return game["bot"].choose_action(view)

    return Exported
