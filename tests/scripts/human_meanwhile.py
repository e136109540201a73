"""A provider that, while 'thinking', lets a human comment and an editor save land in the file.

argv[1]: the discussion file. The answer comes only after both writes are done.
"""

import os
import subprocess
import sys
from pathlib import Path

sys.stdin.read()
path = Path(sys.argv[1])
subprocess.run(
    [
        sys.executable,
        "-m",
        "discussions",
        "comment",
        str(path),
        "written during the turn",
        "--author",
        "Rob",
    ],
    check=True,
    capture_output=True,
)
# An editor saving by rename: new content = old content + a hand-typed comment.
tmp = path.with_name(path.name + ".swp")
tmp.write_bytes(path.read_bytes() + b"\nName: Editor\n\nsaved from the editor\n")
os.replace(tmp, path)
print('{"comment": "my answer", "vote": null}')
