"""The two ways a sandbox can fail to start, and whose fault each is."""

from __future__ import annotations


class SandboxError(RuntimeError):
    """The bot failed to start in its sandbox: its own fault (the reason is for its owner
    and never names a host path or the sandbox's command line)."""


class SandboxUnavailable(RuntimeError):
    """The platform could not build or start the sandbox (no bubblewrap, no user
    namespaces, a resource exhausted on the host): never the bot's fault. The match is
    given back and played again."""
