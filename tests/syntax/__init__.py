"""Tests of the file format (the `syntax` package)."""
