"""Twin of house:lowest: the weakest legal play, fewest cards first; pass when none."""

from arena_bot.president import Bot, export, simple_plays


class Lowest(Bot):
    def play(self, view):
        plays = simple_plays(view)
        return plays[0] if plays else None


WitWorld = export(Lowest)
