"""What a sandboxed bot may use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per sandbox: CPU seconds per process, memory, processes (threads count) and CPU
    cores (a ceiling) for the bot and all its children together, open files per process,
    bytes of output, and seconds to start listening."""

    cpu_seconds: int = 300
    memory_bytes: int = 1024 * 1024 * 1024
    processes: int = 64
    cpu_cores: float = 1.0
    open_files: int = 256
    output_bytes: int = 1024 * 1024
    start_seconds: float = 10.0
