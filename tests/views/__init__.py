"""Tests of presentation shared by interfaces and exports (the `views` package)."""
