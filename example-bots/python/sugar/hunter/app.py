"""Twin of house:hunter: kills when it can, else closes in on the nearest enemy."""

from arena_bot.sugar import Action_Pass, Bot, enemies_next_to, export, kills_after, legal_moves, move, sugar_at

DEADLY = 100_000


class Hunter(Bot):
    def choose_action(self, view):
        enemies = [(a.x, a.y) for a in view.agents if a.owner != view.seat]
        best = None
        for agent, direction, to in legal_moves(view):
            nearest = min((abs(to[0] - e[0]) + abs(to[1] - e[1]) for e in enemies), default=0)
            kills = kills_after(view, agent.id, to)
            value = kills * 1000 - nearest * 10 + sugar_at(view, *to)
            if kills == 0 and enemies_next_to(view, *to) >= 2:
                value -= DEADLY
            if best is None or value > best[0]:
                best = (value, move(agent.id, direction))
        return Action_Pass() if best is None else best[1]


WitWorld = export(Hunter)
