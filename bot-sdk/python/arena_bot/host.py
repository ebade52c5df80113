"""What the arena offers every bot: its log, its fuel, its limits."""

from wit_world.imports import host as _host


def log(message):
    """Append one line to your bot's log (kept in the replay, capped per game)."""
    _host.log(str(message))


def budget():
    """Fuel left now: `.call_fuel` in this move, `.bank_fuel` in the game's bank.

    Fuel counts wasm instructions; the Python interpreter runs many per line
    of your code, so measure with this rather than guess.
    """
    return _host.budget()


def limits():
    """The game's limits: `.move_fuel`, `.bank_fuel`, `.start_fuel`, `.memory_bytes`."""
    return _host.limits()

