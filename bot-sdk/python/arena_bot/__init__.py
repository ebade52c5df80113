"""Write arena bots in Python.

Each game has a module (`arena_bot.en_garde`, `connect_fwar`, `sugar`,
`president`) with a `Bot` class to subclass, helpers, and `export(MyBot)`,
which turns your class into the component's `WitWorld`:

    from arena_bot.en_garde import Bot, export, distance_after

    class Lunge(Bot):
        def choose_move(self, view):
            return min(view.legal_moves, key=lambda m: distance_after(view, m))

    WitWorld = export(Lunge)

Build with `componentize-py -d wit/0.2.0 -w en-garde componentize -p . -p
<arena>/bot-sdk/python app -o bot.wasm` (`arena new --lang python` writes a
project that does this). Every game gets a fresh instance, so a `Bot`
lives exactly one game.
"""

from .host import budget, limits, log
from .rng import Rng

__all__ = ["Rng", "budget", "limits", "log"]
