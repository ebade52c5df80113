"""Twin of house:aggressive: the legal move that ends closest to the opponent."""

from arena_bot.en_garde import Bot, distance_after, export


class Aggressive(Bot):
    def choose_move(self, view):
        # min() keeps the first of equals, as the house bot does.
        return min(view.legal_moves, key=lambda m: distance_after(view, m))


WitWorld = export(Aggressive)
