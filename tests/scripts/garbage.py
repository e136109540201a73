"""Prints bytes that are not UTF-8."""

import sys

sys.stdin.read()
sys.stdout.buffer.write(b"\xff\xfe\xfa not utf-8 \xc3\x28")
