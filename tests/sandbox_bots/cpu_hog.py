from arena.sdk import Bot


class CpuHog(Bot):
    name = "cpu-hog"

    def act(self, observation):
        while True:  # burns CPU until the CPU-time limit kills the process
            pass
