"""Twin of house:random: a random column 0-3, whether or not the card fits."""

from arena_bot import Rng
from arena_bot.connect_fwar import Bot, export


class Random(Bot):
    def __init__(self, info):
        self.rng = Rng(info.seed)

    def choose_column(self, view):
        return self.rng.random_range(4)


WitWorld = export(Random)
