"""Twin of house:greedy: the most sugar it can reach this move, else the richest cell."""

from arena_bot.sugar import SIZE, Action_Pass, Bot, agent_at, enemies_next_to, export, legal_moves, move, sugar_at

DEADLY = 100_000  # ending where two enemies can kill the mover next turn


class Greedy(Bot):
    def choose_action(self, view):
        target, most = (0, 0), 0
        for y in range(SIZE):
            for x in range(SIZE):
                s = sugar_at(view, x, y)
                if s > most and agent_at(view, x, y) is None:
                    most, target = s, (x, y)
        best = None
        for agent, direction, to in legal_moves(view):
            value = sugar_at(view, *to) * 100 - abs(to[0] - target[0]) - abs(to[1] - target[1])
            if enemies_next_to(view, *to) >= 2:
                value -= DEADLY
            if best is None or value > best[0]:
                best = (value, move(agent.id, direction))
        return Action_Pass() if best is None else best[1]


WitWorld = export(Greedy)
