"""Sample bots, each runnable as its own process (see issue 3)."""
