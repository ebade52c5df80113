"""En Garde (docs/rules/en-garde.md): subclass `Bot`, then `WitWorld = export(MyBot)`.

The view is the world's own record: `view.hand`, `view.my_position`,
`view.opponent_position`, `view.legal_moves` (every legal move, as the
referee computes them), `view.last_move`, and the rest of
`wit/0.2.0/en-garde.wit`.
"""

import wit_world
from wit_world.imports.en_garde_types import (  # noqa: F401 (re-exported for bots)
    Direction,
    FencerMove,
    GameInfo,
    PlayedMove,
    RoundInfo,
    RulesVariant,
    View,
)

STRIP = 23
FORWARD = Direction.FORWARD
BACKWARD = Direction.BACKWARD


class Bot:
    """One game's player. Override `choose_move`; the others are optional."""

    def __init__(self, info):
        self.info = info

    def start_round(self, info):
        """A round starts (`info.round`, `info.first_to_move`, `info.scores`)."""

    def choose_move(self, view):
        """Return a `FencerMove` (one of `view.legal_moves`)."""
        raise NotImplementedError("your bot must define choose_move(self, view)")


def landing(view, move):
    """The space `move` ends on, or None when it leaves the strip."""
    step = move.card if move.direction == Direction.FORWARD else -move.card
    to = view.my_position + (step if view.seat == 0 else -step)
    return to if 0 <= to < STRIP else None


def distance_after(view, move):
    """Spaces between the fencers after `move`: 0 is a hit, 255 off the strip."""
    to = landing(view, move)
    return 255 if to is None else abs(to - view.opponent_position)


def export(bot_class):
    """The `WitWorld` class componentize-py exports, playing with `bot_class`."""
    game = {}

    class Exported(wit_world.WitWorld):
        def start_game(self, info):
            game["bot"] = bot_class(info)

        def start_round(self, info):
            game["bot"].start_round(info)

        def choose_move(self, view):
            return game["bot"].choose_move(view)

    return Exported
