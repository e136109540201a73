"""The fixtures the language server's tests borrow: a git repository (from the git tests)."""

from ..git.test_git import repo  # noqa: F401  (the git repository fixture)
