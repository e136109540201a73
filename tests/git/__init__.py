"""Tests of merges, the driver, append-only checks, review (the `git` package)."""
