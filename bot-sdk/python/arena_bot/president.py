"""President (docs/rules/president.md): subclass `Bot`, then `WitWorld = export(MyBot)`.

`view.hand` is your hand weakest first, `view.state` the cards to beat
(empty when you lead), `view.legal_plays` every legal play. Return a list
of cards, or None to pass (legal only when `view.state` is not empty).
"""

import wit_world
from wit_world.imports.president_types import Card, GameInfo, Turn, View  # noqa: F401

JOKER = Card(0, 0)
TWO = 2
WILD = 3


def strength(card):
    """(order, suit): 3s (wild) above Aces, 2s above them, the Joker on top."""
    if card.rank == 0:
        return (100, 0)
    if card.rank == TWO:
        return (90, card.suit)
    if card.rank == WILD:
        return (80, card.suit)
    return (card.rank, card.suit)


class Bot:
    """One game's player. Override `play`."""

    def __init__(self, info):
        self.info = info

    def play(self, view):
        """Return cards from your hand (one of `view.legal_plays`), or None to pass."""
        raise NotImplementedError("your bot must define play(self, view)")


def leading(view):
    """True when you lead the round (and so may not pass)."""
    return len(view.state) == 0


def simple_plays(view):
    """The plays the house bots consider, weakest first: for each rank held,
    its 1 to n lowest-suited cards (no wildcards mixed in), and the Joker;
    only those legal now."""
    by_rank = {}
    for c in view.hand:
        if c.rank != 0:
            by_rank.setdefault(c.rank, []).append(c)
    plays = []
    for cards in by_rank.values():
        cards.sort(key=strength)
        for n in range(1, len(cards) + 1):
            plays.append(cards[:n])
    if any(c.rank == 0 for c in view.hand):
        plays.append([JOKER])
    plays.sort(key=lambda p: (strength(p[0])[0], len(p), max(strength(c)[1] for c in p)))
    legal = {tuple((c.rank, c.suit) for c in p) for p in view.legal_plays}
    return [p for p in plays if tuple((c.rank, c.suit) for c in p) in legal]


def export(bot_class):
    """The `WitWorld` class componentize-py exports, playing with `bot_class`."""
    game = {}

    class Exported(wit_world.WitWorld):
        def start_game(self, info):
            game["bot"] = bot_class(info)

        def play(self, view):
            return game["bot"].play(view)

    return Exported
