"""Prints argv[1] MiB of text (default 64), never stopping early."""

import sys

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 64
line = ("x" * 1023 + "\n").encode()
out = sys.stdout.buffer
for _ in range(mib * 1024):
    out.write(line)
