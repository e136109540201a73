"""A fake AI CLI: reads the prompt on stdin, prints a fixed answer (argv[1]) after argv[2] s."""

import sys
import time

prompt = sys.stdin.read()
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
if delay:
    time.sleep(delay)
answer = sys.argv[1] if len(sys.argv) > 1 else '{"comment": "ok", "vote": null}'
if answer == "@echo-prompt":
    answer = '{"comment": ' + __import__("json").dumps("PROMPT-LEN " + str(len(prompt))) + "}"
sys.stdout.write(answer)
