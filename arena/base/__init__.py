"""The lowest layer, below the engine's users: running asyncio (``aio``), bot endpoints
(``endpoints``: ``HOST:PORT``, checked) and every time limit of the platform's failure
handling (``timing``). Standard library and gRPC only."""
