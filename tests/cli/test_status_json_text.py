"""The text of `status --json` stays byte for byte what it was while it gets faster: its files
shown by one rule at every depth (`cli.common.echo_json`), the top two levels spread one entry
per line, everything deeper on one line as ``json.dumps`` writes it. The reference here is
written the plain way (copy every container, then dump), against which the command's own
shortcuts are checked."""

from __future__ import annotations

import json
import json.encoder
import os
from pathlib import Path
from typing import Any

import pytest

from discussions.cli.common import echo_json
from discussions.model.discussion import Discussion
from discussions.ops.grounds import resolve
from discussions.settings.workspace import Workspace, display_path
from discussions.views.status import status_of
from tests.conftest import FIXTURES, out, run


def _shown(data: Any) -> Any:
    """`data` copied, every absolute ``"file"`` string shown as the messages show paths."""
    if isinstance(data, dict):
        copy = {k: _shown(v) for k, v in data.items()}
        if isinstance(copy.get("file"), str) and os.path.isabs(copy["file"]):
            copy["file"] = display_path(Path(copy["file"]))
        return copy
    if isinstance(data, list):
        return [_shown(v) for v in data]
    return data


def _text(data: Any, level: int = 0) -> str:
    """`data` spread two levels deep, two spaces a level; deeper containers on one line."""
    if level >= 2 or not data or not isinstance(data, (dict, list)):
        return json.dumps(data, ensure_ascii=False)
    pad, end = "\n" + "  " * (level + 1), "\n" + "  " * level
    if isinstance(data, dict):
        inner = [json.dumps(k) + ": " + _text(v, level + 1) for k, v in data.items()]
        return "{" + pad + ("," + pad).join(inner) + end + "}"
    return "[" + pad + ("," + pad).join(_text(v, level + 1) for v in data) + end + "]"


@pytest.mark.parametrize("c_encoder", ["as is", None])
def test_files_shown_at_every_depth_and_nothing_else_changed(
    isolated: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    c_encoder: object,
) -> None:
    if c_encoder != "as is":  # a Python whose json has no C encoder
        monkeypatch.setattr(json.encoder, "c_make_encoder", c_encoder)
    here = str(isolated / "discussions" / "a.md")
    data = {
        "file": here,
        "comments": [
            {"author": "Zoë", "meta": {}, "body": f'quoted: {{"file": "{here}"}}'},
            {"author": "Kim", 'a"file': here},  # holds '"file": ', names no file
            {"author": "Ada", "meta": {"file": here, "at": "x"}, "mentions": ["rob"]},
            {"author": "Rob", "deeper": [{"inner": {"file": here, "n": 1}}], "file": here},
        ],
        "questions": [[{"file": here}], ["plain"], [], {}],
        "positions": {"grid": {"Ada": {"0": "READY"}}, "file": "relative/b.md"},
        "nested": {"level": {"file": here}, "file": here, "empty": {}},
        "escaped": 'a "file": "/not/a/key" and \\"file\\": "/nor/this"',
        "none": None,
        "numbers": [1, 2.5, -0.0, 10**20, True],
    }
    before = json.loads(json.dumps(data))
    echo_json(data)
    assert capsys.readouterr().out == _text(_shown(before)) + "\n"
    assert data == before  # the caller's data untouched


def test_status_json_is_the_state_spread_with_files_shown(isolated: Path) -> None:
    path = isolated / "discussions" / "feature-x.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text((FIXTURES / "seed_feature_x.md").read_text(encoding="utf-8"), "utf-8")
    shown = out(run("status", "--json", str(path)))
    state = status_of(resolve(Discussion.load(path, Workspace.discover())))
    assert shown == _text(_shown(state)) + "\n"
    assert json.loads(shown)["file"] == str(Path("discussions") / "feature-x.md")
