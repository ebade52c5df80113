"""ConnectFwar (docs/rules/connect-fwar.md): subclass `Bot`, then `WitWorld = export(MyBot)`.

`view.card` is the card drawn, `view.columns` the four columns bottom-up,
`view.legal_columns` where it fits; any other number discards it.
"""

import wit_world
from wit_world.imports.connect_fwar_types import Card, GameInfo, View  # noqa: F401

SUITS = {1: "spades", 2: "hearts", 3: "clubs", 4: "diamonds"}


class Bot:
    """One game's player. Override `choose_column`."""

    def __init__(self, info):
        self.info = info

    def choose_column(self, view):
        """Return a column 0-3 for `view.card` (any other number discards it)."""
        raise NotImplementedError("your bot must define choose_column(self, view)")


def export(bot_class):
    """The `WitWorld` class componentize-py exports, playing with `bot_class`."""
    game = {}

    class Exported(wit_world.WitWorld):
        def start_game(self, info):
            game["bot"] = bot_class(info)

        def choose_column(self, view):
            return game["bot"].choose_column(view)

    return Exported
