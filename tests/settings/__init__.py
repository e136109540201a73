"""Tests of configuration, personas, templates (the `settings` package)."""
