"""Arena: a distributed bot-tournament platform for Verish' Ne Verish'."""

from arena import native

__version__ = "0.1.0"

native.check()  # before any compiled module is imported
