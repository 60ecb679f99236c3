from arena.sdk import Bot


class MemoryHog(Bot):
    name = "memory-hog"

    def act(self, observation):
        hoard = bytearray(4 * 1024 * 1024 * 1024)  # 4 GiB: over the address-space limit
        return hoard
