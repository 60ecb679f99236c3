"""Arena: a distributed bot-tournament platform for Verish' Ne Verish'."""

__version__ = "0.1.0"
