import tempfile

from arena.sdk import Bot


class FileHog(Bot):
    name = "file-hog"

    def act(self, observation):
        kept = [tempfile.TemporaryFile() for _ in range(10_000)]  # noqa: SIM115
        return kept
