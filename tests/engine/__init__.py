"""Tests of turns, runs, the council, watch, check (the `engine` package)."""
