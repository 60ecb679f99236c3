from arena.sdk import Bot


class MemoryHog(Bot):
    name = "memory-hog"

    def act(self, observation):
        hoard = b"x" * (4 * 1024 * 1024 * 1024)  # 4 GiB written: over the memory limit
        return hoard
