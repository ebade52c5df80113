"""Twin of house:random: a uniformly random legal move, seeded by the game."""

from arena_bot import Rng
from arena_bot.en_garde import Bot, export


class RandomFencer(Bot):
    def __init__(self, info):
        self.rng = Rng(info.seed)

    def choose_move(self, view):
        return self.rng.choice(view.legal_moves)


WitWorld = export(RandomFencer)
