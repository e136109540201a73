"""``GOVERNS:`` under a ``DECISION:`` (issue 38, item 1), added as one declaration
(`syntax.kinds`) and one rule (`derive.governs`): parsed into the decision's item, merged by
the driver like any comment, shown by ``status --json`` and ``decisions --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.derive.governs import governed_paths
from discussions.derive.rules import derive
from discussions.git.merge import CLEAN, merge_texts
from discussions.settings.workspace import Workspace
from discussions.syntax.render import analyse_tail, join_blocks, render_comment, render_header

from ..conftest import out, result_of, run

HEADER = render_header(
    [("Title", "Auth"), ("Phase", "initial_feedback"), ("Status", "OPEN"), ("Template", "feature")]
)
BASE = HEADER + "\n# Auth\n\n---\n\n" + render_comment("Rob", "Q: how do we log in?", meta=None)


def append(text: str, *blocks: str) -> str:
    return text + join_blocks(analyse_tail(text, at_file_start=True), list(blocks))


def decided(author: str, body: str, at: str) -> str:
    return render_comment(author, body, meta=f"at: 2026-11-23T10:0{at}:00Z")


@pytest.fixture
def ws(isolated: Path) -> Workspace:
    return Workspace.discover()


# Paths as people write them: globs, directories, dotted names; no comma, no backtick.
PATH = st.text(st.sampled_from("abcxyz019_-./*"), min_size=1, max_size=12).filter(
    lambda p: p.strip(" ./") != ""
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(paths=st.lists(PATH, min_size=1, max_size=5), spaces=st.sampled_from(["", " ", "  "]))
def test_the_paths_of_a_governs_line_go_to_the_decision_above_it(
    ws: Workspace, paths: list[str], spaces: str
) -> None:
    line = ("," + spaces).join(f"`{p}`" if i % 2 else p for i, p in enumerate(paths))
    body = f"We agree.\n\nDECISION: use JWT\n- **GOVERNS:** {line}\n\nMore words.\n"
    s = derive(append(BASE, decided("Ann", body, "1")), ws)
    [decision] = s.items["DECISION"]
    assert decision.details == {"governs": list(dict.fromkeys(paths))}
    assert governed_paths(line) == list(dict.fromkeys(paths))
    assert not [w for w in s.warnings if w.code == "governs-alone"]


def test_each_governs_line_goes_to_the_nearest_decision_above_it(ws: Workspace) -> None:
    body = (
        "DECISION: use JWT\nGOVERNS: src/auth/**, config/auth.yaml\n\n"
        "DECISION: rotate keys monthly\nGOVERNS: ops/keys.md\nGOVERNS: ops/**\n\n"
        "```\nGOVERNS: in/code/only\n```\n"
    )
    s = derive(append(BASE, decided("Ann", body, "1")), ws)
    assert [(i.text, i.details) for i in s.items["DECISION"]] == [
        ("use JWT", {"governs": ["src/auth/**", "config/auth.yaml"]}),
        ("rotate keys monthly", {"governs": ["ops/keys.md", "ops/**"]}),
    ]


def test_a_governs_line_without_a_decision_above_it_governs_nothing(ws: Workspace) -> None:
    first = decided("Ann", "DECISION: use JWT\n", "1")
    alone = decided("Bob", "GOVERNS: src/auth/**\n\nDECISION: later\n", "2")
    s = derive(append(BASE, first, alone), ws)
    assert [i.details for i in s.items["DECISION"]] == [{}, {}]
    [warning] = [w for w in s.warnings if w.code == "governs-alone"]
    assert warning.line == s.comments[-1].line + 4  # Name:, blank, the time, blank
    assert "governs" not in s.items["DECISION"][0].to_dict()


def test_two_branches_each_adding_a_governs_line_merge_into_one_decision(ws: Workspace) -> None:
    """Each branch restates the decision with what it governs: the merge keeps both comments,
    and the decision governs what each named, in file order."""
    ours = append(BASE, decided("Ann", "DECISION: use JWT\nGOVERNS: src/auth/**\n", "1"))
    theirs = append(BASE, decided("Bob", "DECISION: Use JWT.\nGOVERNS: config/auth.yaml\n", "2"))
    for a, b in ((ours, theirs), (theirs, ours)):
        r = merge_texts(BASE, a, b)
        assert r.status == CLEAN
        [decision] = derive(r.text, ws).items["DECISION"]
        assert decision.author == "Ann"
        assert decision.details == {"governs": ["src/auth/**", "config/auth.yaml"]}
        assert [x.author for x in decision.restated] == ["Bob"]


def test_status_and_decisions_json_show_what_a_decision_governs(isolated: Path) -> None:
    created = result_of(run("new", "Auth", "--json"))
    path = str(created["file"])
    said = "We settle it.\n\nDECISION: use JWT\nGOVERNS: src/auth/**, config/auth.yaml\n"
    assert result_of(run("comment", path, said, "--author", "Rob", "--json"))
    status = result_of(run("status", path, "--json"))
    [decision] = status["decisions"]  # type: ignore[misc]
    assert decision["governs"] == ["src/auth/**", "config/auth.yaml"]
    assert list(decision) == ["text", "author", "line", "governs"]
    [entry] = json.loads(out(run("decisions", "--json")))
    assert entry["text"] == "use JWT" and entry["governs"] == ["src/auth/**", "config/auth.yaml"]
