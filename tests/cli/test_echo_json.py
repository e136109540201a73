"""`status --json` and the other commands' JSON name every ``"file"`` by one rule, however deep
it stands (`cli.common.echo_json`), and leave everything else as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.cli.common import echo_json


def test_every_file_is_shown_relative_however_deep(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = str(isolated / "discussions" / "a.md")
    data = {
        "file": here,
        "comments": [
            {"author": "Rob", "mentions": ["ada"], "meta": {"provider": "mock"}},
            {"author": "Ada", "mentions": [], "meta": {"file": here, "at": "x"}},
        ],
        "nested": [[{"file": here}], ["plain"], []],
        "other": {"file": "relative/b.md", "n": 1},
    }
    before = json.loads(json.dumps(data))
    echo_json(data)
    shown = json.loads(capsys.readouterr().out)
    relative = str(Path("discussions") / "a.md")
    assert shown["file"] == relative
    assert shown["comments"][1]["meta"] == {"file": relative, "at": "x"}
    assert list(shown["comments"][1]["meta"]) == ["file", "at"]  # the order kept
    assert shown["nested"] == [[{"file": relative}], ["plain"], []]
    assert shown["comments"][0] == before["comments"][0]
    assert shown["other"] == before["other"]
    assert data == before  # the caller's data untouched
