"""Tests of state derived from a file (the `derive` package)."""
