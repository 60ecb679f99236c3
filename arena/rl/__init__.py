"""The game as a learning environment (``pip install arena[rl]``; docs/learning.md).

- :func:`aec_env`: a PettingZoo AEC environment, wrapped as PettingZoo's classic
  card games are (``raw_env`` unwrapped);
- :func:`single_agent_env`: a Gymnasium environment of one learning seat against
  chosen opponents;
- ``import arena.rl.openspiel`` registers the game ``arena_verish`` with OpenSpiel.

The SDK and the platform never import this package.
"""

from __future__ import annotations

from typing import Any


def aec_env(*args: Any, **kwargs: Any) -> Any:
    """See :func:`arena.rl.aec.aec_env`."""
    from arena.rl.aec import aec_env as make

    return make(*args, **kwargs)


def raw_env(*args: Any, **kwargs: Any) -> Any:
    """See :class:`arena.rl.aec.raw_env`."""
    from arena.rl.aec import raw_env as make

    return make(*args, **kwargs)


def single_agent_env(*args: Any, **kwargs: Any) -> Any:
    """See :func:`arena.rl.single.single_agent_env`."""
    from arena.rl.single import single_agent_env as make

    return make(*args, **kwargs)
