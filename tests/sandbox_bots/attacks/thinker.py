"""An honest victim that computes a fixed amount before every decision."""

from player import Plain, given

WORK = given("ITERATIONS")


class Thinker(Plain):
    name = "thinker"

    def act(self, obs):
        total = 0
        for i in range(WORK):
            total += i
        return super().act(obs)
