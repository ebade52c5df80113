"""Twin of house:suits: the column numbered suit - 1."""

from arena_bot.connect_fwar import Bot, export


class Suits(Bot):
    def choose_column(self, view):
        return view.card.suit - 1


WitWorld = export(Suits)
