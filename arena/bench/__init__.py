"""Benchmarks: each returns figures as a dict; the CLI prints them."""
