"""Tests of AI command-line tools, the mock, replay, usage (the `providers` package)."""
