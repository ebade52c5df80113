"""Twin of house:cowardly: the legal move that ends farthest from the opponent."""

from arena_bot.en_garde import Bot, distance_after, export


class Cowardly(Bot):
    def choose_move(self, view):
        best = view.legal_moves[0]
        for m in view.legal_moves[1:]:
            if distance_after(view, m) > distance_after(view, best):
                best = m
        return best


WitWorld = export(Cowardly)
