"""Tests of the terminal app (the `tui` package)."""
