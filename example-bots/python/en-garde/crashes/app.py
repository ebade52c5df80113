"""Not a twin: shows how an uncaught exception is reported (in round 2 it
looks a key up in an empty dict). The forfeit's reason is the exception's
last line; the whole traceback is in the log."""

from arena_bot.en_garde import Bot, export


class Crashes(Bot):
    def choose_move(self, view):
        if view.round >= 2:
            return {}["no such key"]
        return view.legal_moves[0]


WitWorld = export(Crashes)
