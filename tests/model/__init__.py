"""Tests of discussion files and folders of them (the `model` package)."""
