"""A stand-in judge for `discussions trial`'s rubric tasks.

argv[1] is how it judges: ``word=WORD`` prefers the answer that contains WORD (a fair judge:
the same answer wins in either order), ``first`` always prefers Answer 1 (a judge biased to
the first position), ``mumble`` gives no verdict at all.
"""

import re
import sys

prompt = sys.stdin.read()
how = sys.argv[1]
answers = re.findall(r"## Answer \d\n\n```+\n(.*?)\n```", prompt, re.S)
if how == "first":
    print("The first one reads better.\nVERDICT: 1")
elif how == "mumble":
    print("Both have merit.")
else:
    word = how.removeprefix("word=")
    has = [word in a for a in answers]
    pick = "TIE" if has[0] == has[1] else ("1" if has[0] else "2")
    print(f"Judged on {word!r}.\nVERDICT: {pick}")
