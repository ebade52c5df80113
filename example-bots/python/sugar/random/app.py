"""Twin of house:random: a random placement, then uniformly random legal moves."""

from arena_bot import Rng
from arena_bot.sugar import Bot, export, legal_moves, move


class RandomMover(Bot):
    def place(self, info):
        self.rng = Rng(info.seed)
        xs = list(range(5))
        for i in range(len(xs) - 1, 0, -1):  # Fisher-Yates with the house bot's draws
            j = self.rng.random_range(i + 1)
            xs[i], xs[j] = xs[j], xs[i]
        return xs

    def choose_action(self, view):
        agent, direction, _ = self.rng.choice(legal_moves(view))
        return move(agent.id, direction)


WitWorld = export(RandomMover)
