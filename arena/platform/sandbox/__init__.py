"""Running uploaded bots contained (bubblewrap, control groups, rlimits).

Each sandboxed bot gets its own namespaces, an unprivileged uid with no capabilities,
no network, a read-only view of the system and the Python runtime, a private scratch
folder, and limits that hold for the bot and all its children together; it talks to
the referee over a Unix socket the platform chose. See ``box`` for the life of one
sandbox, ``bwrap`` for what the bot sees, ``cgroup`` for the limits.
"""

from typing import TYPE_CHECKING, Any

from arena.platform.sandbox.box import Sandbox, scrub, unsandboxed
from arena.platform.sandbox.errors import SandboxError, SandboxUnavailable
from arena.platform.sandbox.limits import Limits
from arena.platform.sandbox.probe import availability
from arena.platform.settings import UNSANDBOXED_ENV

if TYPE_CHECKING:
    from arena.platform.sandbox.seat import SandboxedSeat

__all__ = [
    "UNSANDBOXED_ENV",
    "Limits",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "SandboxedSeat",
    "availability",
    "scrub",
    "unsandboxed",
]


def __getattr__(name: str) -> Any:
    """``SandboxedSeat`` loads on first use: it needs the referee, which a worker starting
    up, or the sandbox probe, does not."""
    if name == "SandboxedSeat":
        from arena.platform.sandbox.seat import SandboxedSeat

        return SandboxedSeat
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
