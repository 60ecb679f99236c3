"""The application: the platform's services (``Platform``: settings, the migrated
database, the queue), the processes it runs, submissions and sandboxes.

``Platform`` and ``PlatformError`` load on first use, so a module of the package (the
bot launcher of ``arena play``, say) is imported without the store and the queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.platform.core import Platform
    from arena.platform.errors import PlatformError

__all__ = ["Platform", "PlatformError"]


def __getattr__(name: str) -> Any:
    if name == "Platform":
        from arena.platform.core import Platform

        return Platform
    if name == "PlatformError":
        from arena.platform.errors import PlatformError

        return PlatformError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
