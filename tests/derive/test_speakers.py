"""Who may speak for whom: a person cannot sign as a participant, from any interface."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions import Discussion, ReservedName
from discussions.derive.speakers import ai_authors, impersonated, name_key, name_keys
from discussions.settings.workspace import Workspace

from ..conftest import code, out, run, write
from ..support.web import LiveServer

NAME = "auth.md"
REFUSED = "is the name of participant AI-Security (@security)"

# Each is refused as AI-Security: as written, case, spaces, the alias, the engine's own
# first-name reading, full-width letters, a Cyrillic S, an accent, dots, a dash look-alike.
SECURITY_LOOKALIKES = [
    "AI-Security",
    "ai-security",
    "  AI   Security ",
    "security",
    "@security",
    "Security Bob",
    "ＡＩ－Ｓｅｃｕｒｉｔｙ",
    "AI-Ѕecurity",
    "AI-Sécurity",
    "A.I. Security",
    "AI–Security",
    "Al-Securlty",
    "AI_Secur1ty",
    "\u13aal-Security",  # a Cherokee A (UTS #39 skeleton)
    "AI-Securityy",  # one keystroke away: squatting
    "AI-Secuirty",
]


@pytest.fixture
def project(isolated: Path) -> Path:
    assert code(run("new", "Auth", "--context", "Log in with passkeys.")) == 0
    return isolated


def file_text(project: Path) -> str:
    return (project / "discussions" / NAME).read_text(encoding="utf-8")


def test_name_keys_fold_lookalikes(isolated: Path) -> None:
    registry = Workspace.discover().participants
    for name in SECURITY_LOOKALIKES:
        assert impersonated(name, registry) == "participant AI-Security (@security)", name
    assert name_keys("\u13aal-Security") & name_keys("AI-Security")  # the same skeleton
    assert name_keys("ＡＩ－Ｓｅｃｕｒｉｔｙ") & name_keys("ai security")
    assert name_key("Zoë Ångström") == name_key("zoe angstrom")
    assert not name_keys("Rob") & name_keys("Bob")
    for person in ("Rob", "Zoë Ångström", "Bob Security", "Archie", "Al", "Ann", "Securitas Inc"):
        assert impersonated(person, registry) == "", person


@pytest.mark.parametrize("author", SECURITY_LOOKALIKES)
def test_cli_refuses_a_participants_name(project: Path, author: str) -> None:
    before = file_text(project)
    r = run("comment", NAME, "--vote", "READY", "--author", author)
    assert code(r) == 1
    assert out(r).startswith(f"Error: '{' '.join(author.split())}' {REFUSED}, or looks like it")
    assert "Sign with your own name" in out(r)
    assert file_text(project) == before


def test_cli_refuses_a_ballot_in_a_participants_name(project: Path) -> None:
    before = file_text(project)
    r = run("comment", NAME, "--ballot", "no", "--author", "AI-Security")
    assert code(r) == 1 and REFUSED in out(r)
    assert file_text(project) == before


def test_people_keep_their_own_names(project: Path) -> None:
    for author in ("Rob", "Zoë Ångström", "Bob Security", "Archie", "Al"):
        r = run("comment", NAME, "Fine by me.", "--author", author)
        assert code(r) == 0, out(r)
    d = Discussion.load(project / "discussions" / NAME)
    assert [c.author for c in d.comments] == ["Rob", "Zoë Ångström", "Bob Security", "Archie", "Al"]


AI_GHOST = """
---

Name: AI-Ghost

<!-- provider: claude | duration: 3.1s | digest: 0000000000000000 -->

Written by a persona this project no longer configures.

VOTE: REJECT

---

<!-- PASS: AI-Phantom -->

*AI-Phantom passed.*

---
"""


def test_an_author_who_spoke_as_an_ai_in_the_file_is_reserved(project: Path) -> None:
    path = project / "discussions" / NAME
    with path.open("a", encoding="utf-8") as f:
        f.write(AI_GHOST)
    assert ai_authors(path.read_text(encoding="utf-8")) == ["AI-Ghost", "AI-Phantom"]
    for author in ("AI-Ghost", "ai ghost", "AI-Phantom", "Ghost", "Phantom Bot", "gh0st"):
        r = run("comment", NAME, "--vote", "READY", "--author", author)
        assert code(r) == 1, out(r)
        assert "who speaks as an AI in this discussion" in out(r)
    # A person who only commented is not reserved.
    assert code(run("comment", NAME, "Hi.", "--author", "Rob")) == 0
    assert code(run("comment", NAME, "Hi again.", "--author", "Rob")) == 0


def test_python_api_refuses_and_writes_nothing(project: Path) -> None:
    path = project / "discussions" / NAME
    before = file_text(project)
    d = Discussion.load(path, Workspace.discover())
    with pytest.raises(ReservedName, match="AI-Architect"):
        d.add_comment("AI-Architect", "Signed as the architect.", vote="READY")
    d.save()
    assert file_text(project) == before
    d = Discussion.load(path)  # the workspace found from the working folder
    with pytest.raises(ReservedName):
        d.add_comment("architect", "x")
    registry = Workspace.discover().participants
    assert impersonated("Rob", registry) == ""


def test_a_project_persona_is_reserved_too(project: Path) -> None:
    write(
        project / "participants" / "auditor.yaml",
        """
        name: Compliance Auditor
        alias: auditor
        role: Checks compliance
        """,
    )
    for author in ("Compliance Auditor", "compliance-auditor", "auditor", "AI-Auditor"):
        r = run("comment", NAME, "x", "--author", author)
        assert code(r) == 1 and "participant Compliance Auditor (@auditor)" in out(r), out(r)


# -- the web form (real HTTP) ----------------------------------------------------------------


@pytest.fixture
def server(project: Path) -> Iterator[LiveServer]:
    s = LiveServer(Workspace.discover())
    yield s
    s.stop()


def test_web_refuses_a_participants_name(server: LiveServer, project: Path) -> None:
    before = file_text(project)
    api = f"/api/discussions/{NAME}/comments"
    for author in ("AI-Security", "security", "ＡＩ Ｓｅｃｕｒｉｔｙ"):
        reply = server.post(api, {"author": author, "text": "Fine.", "vote": "READY"})
        assert reply.status == 400, reply.text
        assert REFUSED in reply.json()["error"]
    assert file_text(project) == before
    assert server.post(api, {"author": "Rob", "text": "Fine."}).status == 201


# -- the MCP tool (a real stdio client) -----------------------------------------------------


@pytest.mark.slow
def test_mcp_add_comment_refuses_a_participants_name(project: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from ..support.subprocesses import server_env

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "discussions", "mcp"], env=server_env(), cwd=project
    )
    before = file_text(project)
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write_),
                ClientSession(read, write_) as session,
            ):
                await session.initialize()
                for author in ("AI-Security", "Security Bob"):
                    got = await session.call_tool(
                        "add_comment",
                        {"file": NAME, "author": author, "text": "ok", "vote": "ready"},
                    )
                    seen[author] = (got.is_error, got.content[0].text)  # type: ignore[union-attr]

    anyio.run(scenario)
    for author in ("AI-Security", "Security Bob"):
        is_error, message = seen[author]
        assert is_error and REFUSED in message, message
    assert file_text(project) == before


# -- the terminal app -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.asyncio
async def test_tui_composer_refuses_a_participants_name(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from discussions.tui.app import DiscussionsApp
    from discussions.tui.discussion import Composer, DiscussionScreen

    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(project / "gitconfig"))
    (project / "gitconfig").write_text("[user]\n\tname = AI-Security\n", encoding="utf-8")
    notes: list[str] = []
    monkeypatch.setattr(Composer, "notify", lambda self, message, **kw: notes.append(message))
    before = file_text(project)
    ws = Workspace.discover()
    app = DiscussionsApp(ws.config.output_directory, Path("discussions") / NAME, ws)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, DiscussionScreen):
            await pilot.pause(0.05)
        await pilot.press("c")
        assert isinstance(app.screen, Composer)
        await pilot.press(*"Signed as the persona")
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)
        assert isinstance(app.screen, Composer)  # still open: nothing was posted
    assert any(REFUSED in n for n in notes), notes
    assert file_text(project) == before


# -- who casts counted ballots ----------------------------------------------------------------


def test_only_the_council_casts_counted_ballots(isolated: Path) -> None:
    from ..support.council import people_motion

    path = people_motion(isolated, "vote.md")
    assert code(run("comment", "vote.md", "--second", "yes", "--author", "Mallory")) == 0
    assert Discussion.load(path).motions[0].seconded_by == []  # not a council second
    assert code(run("comment", "vote.md", "--second", "yes", "--author", "ana")) == 0
    for name in ("Mallory", "Eve", "Trent", "Mallory"):
        r = run("comment", "vote.md", "--ballot", "yes", "--author", name)
        assert code(r) == 0
        assert f"Note: {name} is not on this discussion's council" in out(r)
        assert "Motion of line" not in out(r)
    r = run("comment", "vote.md", "--ballot", "no", "--author", "Rob")
    assert code(r) == 0 and "Note:" not in out(r)
    r = run("comment", "vote.md", "--ballot", "no", "--author", "ANA")  # Ana, any case
    assert "Motion of line 9 failed." in out(r)
    d = Discussion.load(path)
    [motion] = d.motions
    assert motion.seconded_by == ["Ana"]
    assert motion.ballots == {"Rob": "NO", "Ana": "NO"}
    assert motion.not_counted == {"Eve": "YES", "Trent": "YES", "Mallory": "YES"}
    assert motion.counts == {"YES": 0, "NO": 2, "ABSTAIN": 0} and motion.result == "failed"
    assert "<!-- MOTION-RESULT: failed | yes: 0 | no: 2 | abstain: 0 | line: 9 -->" in (
        path.read_text(encoding="utf-8")
    )
    shown = out(run("status", "vote.md"))
    assert "ballots not counted (not on the council): Eve, Trent, Mallory" in shown
    assert "ballot from Mallory, who is not on the council" in shown
    data = json.loads(out(run("status", "vote.md", "--json")))
    assert data["motions"][0]["not_counted"] == {"Eve": "YES", "Trent": "YES", "Mallory": "YES"}
    assert data["motions"][0]["ballots"] == {"Rob": "NO", "Ana": "NO"}
    messages = [w["message"] for w in data["warnings"]]
    assert sum("who is not on the council" in m for m in messages) == 5  # 1 second, 4 ballots
    assert code(run("check", "vote.md")) == 1


@pytest.mark.slow
def test_ballots_from_outside_do_not_complete_an_ai_council(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    """With no people named, the council is the voting participants; invented names change
    nothing, and the AIs are still asked."""
    from ..conftest import script_command
    from ..support.council import council_template

    council_template(isolated)
    plan = {
        "second": {"security": "yes"},
        "ballot": {"architect": "NO", "security": "NO", "pragmatist": "NO"},
    }
    memory = isolated.parent / "memory"
    providers_file({"standin": script_command("council.py", json.dumps(plan), str(memory))})
    write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    assert code(run("new", "Plan", "--template", "council")) == 0
    assert code(run("comment", "plan.md", "--motion", "Ship it", "--author", "Rob")) == 0
    for name in ("Mallory", "Eve", "Trent", "Oscar"):
        assert (
            code(run("comment", "plan.md", "--second", "yes", "--ballot", "yes", "--author", name))
            == 0
        )
    d = Discussion.load(isolated / "discussions" / "plan.md")
    assert d.motions[0].result == "open"
    assert d.motions[0].seconded_by == [] and d.motions[0].ballots == {}
    seconds = [
        w for w in d.warnings if "second from" in w.message and "not on the council" in w.message
    ]
    assert len(seconds) == 4
    assert code(run("turn", "plan.md")) == 0
    assert sorted(p.stem.split("-")[1] for p in (memory / "prompts").glob("*-second.txt")) == [
        "architect",
        "pragmatist",
        "security",
    ]  # the council was asked to second: the outsiders' seconds did not count
    [motion] = Discussion.load(isolated / "discussions" / "plan.md").motions
    assert motion.seconded_by == ["AI-Security"]
    assert motion.result == "failed" and motion.counts == {"YES": 0, "NO": 3, "ABSTAIN": 0}


# -- sealed ballots ---------------------------------------------------------------------------

REASON = "the rotation key is shared with staging"


@pytest.mark.slow
def test_a_ballots_reasons_are_sealed_until_the_result(council, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The stand-in records every prompt it gets: no prompt to another voter shows a ballot's
    comment (reasons included) before the result is recorded; afterwards every prompt does."""
    from ..support.council import MOTION, prompts

    path = council(
        {"second": {"security": "yes"}, "ballot": {"architect": "NO", "security": "YES"}},
        humans=["Rob", "Ana"],
    )
    assert code(run("comment", "plan.md", "--motion", MOTION, "--author", "Rob")) == 0
    assert code(run("comment", "plan.md", "--second", "yes", "--author", "Ana")) == 0
    ballot = f"I vote NO because {REASON}.\n\nQ: who rotates it?\n\n@security see above"
    assert code(run("comment", "plan.md", ballot, "--ballot", "no", "--author", "Ana")) == 0
    r = run("run", "plan.md", "--json")
    assert code(r) == 0, out(r)  # stops: Rob has not voted
    ballots = prompts(tmp_path, "ballot")
    assert sorted(ballots) == ["architect", "pragmatist", "security"]
    # Another turn while the vote is open: the AIs' own ballots are in the file now.
    assert code(run("turn", "plan.md")) == 0
    turns = prompts(tmp_path, "turn")
    assert sorted(turns) == ["architect", "pragmatist", "security"]
    for alias, text in {**ballots, **turns}.items():
        assert REASON not in text and "I vote NO because" not in text, alias
        assert "who rotates it?" not in text
        assert "Name: Ana" in text or "Ana: *(a sealed ballot)*" in text  # in full or one line
        assert "*(a sealed ballot)*" in text
        assert MOTION in text  # the motion itself is not sealed
    for alias, text in turns.items():
        others = {"architect", "pragmatist", "security"} - {alias}
        assert f"My reasons, as {alias}." in text  # one's own ballot stays visible
        assert not any(f"My reasons, as {o}." in text for o in others), alias
    d = Discussion.load(path)
    assert d.motions[0].result == "open"
    assert REASON in path.read_text(encoding="utf-8")  # sealed from prompts, not from the file

    # Rob's ballot completes the vote: the result is recorded, the ballots are shown.
    r = run("comment", "plan.md", "--ballot", "yes", "--author", "Rob")
    assert "Motion of line" in out(r)
    assert Discussion.load(path).motions[0].recorded
    for f in (tmp_path / "memory" / "prompts").glob("*.txt"):
        f.unlink()
    config = path.parent.parent / "discussions.yaml"  # every comment in full, reasons included
    config.write_text(config.read_text() + "context:\n  recent_comments: 50\n  growth: 10\n")
    assert code(run("turn", "plan.md")) == 0
    after = prompts(tmp_path, "turn")
    assert after and all(REASON in t and "who rotates it?" in t for t in after.values())
    assert all("My reasons, as security." in t for t in after.values())
    assert all("*(a sealed ballot)*" not in t for t in after.values())


def test_a_hand_typed_ballot_is_sealed_past_a_line_that_only_looks_like_an_engine_block(
    council,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """The seal ends at engine blocks the parser found, never at a line that merely looks like
    one (typed by hand, or inside a code block): the reasons after it stay sealed."""
    from discussions.engine.prompt.prompts import build_prompt

    from ..support.council import MOTION

    path = council({"second": {"security": "yes"}}, humans=["Rob", "Ana"])
    assert code(run("comment", "plan.md", "--motion", MOTION, "--author", "Rob")) == 0
    assert code(run("comment", "plan.md", "--second", "yes", "--author", "Ana")) == 0
    with path.open("a", encoding="utf-8") as f:
        f.write(
            "\n---\n\nName: Ana\n\nBALLOT: NO\n\nMy reasons, with the config we would ship:\n\n"
            "```html\n<!-- TODO: drop this -->\n```\n\n<!-- NOTE: typed by hand -->\n\n"
            f"{REASON}.\n\n---\n"
        )
    d = Discussion.load(path)
    assert d.motions[0].result == "open" and d.motions[0].ballot_comments
    for alias in ("architect", "security"):
        prompt = build_prompt(d, d.workspace.participants.get(alias))[0]
        assert REASON not in prompt and "TODO: drop this" not in prompt, alias
        assert "*(a sealed ballot)*" in prompt


# --------------------------------------------------------------------------- issue 36

_OLD_AI_AUTHOR = re.compile(
    r"\nName:[ \t]*(?P<name>[^\n]*?)[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*<!--[ \t]*provider:"
)
_OLD_PASS = re.compile(r"\n[ ]{0,3}<!--[ \t]*PASS:[ \t]*(?P<name>[^\n]*?)[ \t]*-->")


def _old_ai_authors(text: str) -> list[str]:
    """`ai_authors` as it was: both patterns tried at every line of the text (the oracle)."""
    text = "\n" + text
    found = [m.group("name") for m in _OLD_AI_AUTHOR.finditer(text)]
    found += [m.group("name") for m in _OLD_PASS.finditer(text)]
    return list(dict.fromkeys(n for n in found if n))


_PIECES = [
    "Name: AI-A",
    "Name: provider: B",
    "Name:  Rob ",
    "Name:",
    "<!-- provider: x -->",
    " <!--provider:",
    "\t<!-- provider: y | at: t -->",
    "<!-- PASS: a -->",
    "   <!-- PASS: PASS: b -->",
    "    <!-- PASS: c -->",
    "<!-- PASS:d-->",
    "PASS: e -->",
    "provider:",
    "text",
    "",
    " ",
    "\r",
    "---",
    "Name: AI-C\r",
    "<!-- PASS: f",
    "x Name: G",
]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from(["\n", "\n\n", " "]))
def test_ai_authors_agrees_with_the_scan_of_every_line(pieces: list[str], sep: str) -> None:
    text = sep.join(pieces)
    assert ai_authors(text) == _old_ai_authors(text)
