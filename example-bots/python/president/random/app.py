"""Twin of house:random: a uniformly random legal play, or a pass when following."""

from arena_bot import Rng
from arena_bot.president import Bot, export, leading, simple_plays


class Random(Bot):
    def __init__(self, info):
        self.rng = Rng(info.seed)

    def play(self, view):
        options = list(simple_plays(view))
        if not leading(view):
            options.append(None)
        if not options:
            return None
        # Rust's swap_remove picks the same element.
        return options[self.rng.random_range(len(options))]


WitWorld = export(Random)
