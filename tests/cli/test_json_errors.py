"""With ``--json`` a failed command prints its error as a JSON object on standard output,
where a script reads the result, with the exit code it has without (one place: the root
group); without ``--json`` the error stays the ``Error:`` line on standard error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES = [
    (["status", "nowhere.md"], 1, "no such discussion file: nowhere.md"),  # a library error
    (["providers", "show", "nothing"], 1, "no provider 'nothing'"),  # a command's own
    (["apply", "x.md", "--force"], 2, "--force needs --reason TEXT"),  # a usage error
    # an option refused as it is read, before --json comes (it is read first)
    (["outcome", "x.md", "--verdict", "maybe", "--reason", "r"], 2, "'maybe' is not one of"),
]


def _discussions(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "discussions", *args]
    return subprocess.run(
        command, cwd=cwd, env=os.environ, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize(("args", "exit_code", "message"), CASES)
def test_an_error_under_json_is_a_json_object(
    isolated: Path, args: list[str], exit_code: int, message: str
) -> None:
    done = _discussions(isolated, *args, "--json")
    assert done.returncode == exit_code, done.stderr
    assert message in json.loads(done.stdout)["error"]
    assert done.stderr == ""
    plain = _discussions(isolated, *args)
    assert plain.returncode == exit_code and plain.stdout == ""
    assert message in plain.stderr and "Error: " in plain.stderr
