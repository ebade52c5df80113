"""Twin of house:basic: the first column, left to right, where the card fits."""

from arena_bot.connect_fwar import Bot, export


class Basic(Bot):
    def choose_column(self, view):
        return view.legal_columns[0] if view.legal_columns else 0


WitWorld = export(Basic)
