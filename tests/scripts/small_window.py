"""A fake small local model: refuses a prompt over argv[1] tokens (4 bytes a token), as
llama.cpp-based CLIs do, and answers a short one in the discussion's JSON format."""

import sys

prompt = sys.stdin.buffer.read()
window = int(sys.argv[1]) if len(sys.argv) > 1 else 512
tokens = len(prompt) // 4
if tokens > window:
    sys.stderr.write(f"error: prompt of {tokens} tokens exceeds the context window ({window})\n")
    sys.exit(1)
sys.stdout.write('{"comment": "Ready.", "vote": "READY"}')
