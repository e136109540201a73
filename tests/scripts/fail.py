"""Exits with status argv[1] after printing argv[2] to stderr."""

import sys

sys.stdin.read()
sys.stderr.write(sys.argv[2] if len(sys.argv) > 2 else "something broke\n")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
