#!/usr/bin/env python3
"""Fuel per move of the example twins in every language: the table of
docs/languages.md ("Fuel across languages") and the headroom the default
budgets leave (docs/rules/*.md). Each twin plays 40 games against
house:random (President: at a table of four) with `arena match --json`.

    cargo build --release && example-bots/build.sh && scripts/fuel-table.py
"""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARENA = ROOT / "target" / "release" / "arena"
WASM = ROOT / "example-bots" / "wasm"
LANGS = [("Rust", ""), ("Python", "-py"), ("JS SpiderMonkey", "-js"), ("JS QuickJS", "-qjs")]
ROWS = [("en-garde", "aggressive"), ("connect-fwar", "basic"), ("sugar", "greedy"), ("sugar", "hunter"),
        ("president", "lowest")]


def fuel(game, path):
    """Mean and most fuel per move of the bot at `path`, or None."""
    others = ["house:random"] * {"president": 3, "connect-fwar": 0}.get(game, 1)
    out = subprocess.run([str(ARENA), "match", "--game", game, str(path), *others, "--games", "40", "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"{path.name}: {out.stderr.strip()}", file=sys.stderr)
        return None
    f = json.loads(out.stdout)["bots"][0]["fuel"]
    return f["mean_per_move"], f["max_per_move"]


def amount(n):
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return f"{n:.0f}"


def main():
    print("| game, bot | " + " | ".join(f"{name} mean" for name, _ in LANGS) + " | most in one move |")
    print("|---|" + "---|" * (len(LANGS) + 1))
    for game, bot in ROWS:
        cells, most = [], (0, "")
        rust = None
        for name, suffix in LANGS:
            path = WASM / game / f"{bot}{suffix}.wasm"
            got = fuel(game, path) if path.exists() else None
            if got is None:
                cells.append("-")
                continue
            mean, peak = got
            rust = rust or mean
            cells.append(amount(mean) + ("" if suffix == "" else f" ({mean / rust:.0f}x)"))
            most = max(most, (peak, f"{bot}{suffix}"))
        # The most any twin of the game used, whatever its strategy.
        for path in sorted((WASM / game).glob("*.wasm")):
            if any(k in path.name for k in ("crash", "fetch", "async")):
                continue
            got = fuel(game, path)
            if got:
                most = max(most, (got[1], path.stem))
        print(f"| {game}, {bot} | " + " | ".join(cells) + f" | {amount(most[0])} ({most[1]}) |")


if __name__ == "__main__":
    main()
