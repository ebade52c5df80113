"""Twin of house:ranks: the column numbered (rank - 1) mod 4."""

from arena_bot.connect_fwar import Bot, export


class Ranks(Bot):
    def choose_column(self, view):
        return (view.card.rank - 1) % 4


WitWorld = export(Ranks)
