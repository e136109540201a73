"""Tests of the web view (the `web` package)."""
