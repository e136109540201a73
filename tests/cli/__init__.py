"""Tests of the command line (the `cli` package)."""
