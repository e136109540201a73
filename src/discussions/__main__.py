"""`python -m discussions` runs the command line."""

from .cli import main

main()
