"""The FastAPI dashboard and public API (see issue 5)."""
