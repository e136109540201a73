"""Reports its argv and whether CLAUDECODE is set, as a JSON comment."""

import json
import os
import sys

sys.stdin.read()
print(
    json.dumps(
        {
            "comment": json.dumps(
                {"argv": sys.argv[1:], "CLAUDECODE": os.environ.get("CLAUDECODE")}
            ),
            "vote": None,
        }
    )
)
