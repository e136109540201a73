"""A model that only repeats its prompt: prints what it reads on stdin, byte for byte."""

import sys

sys.stdout.write(sys.stdin.read())
