"""The turn's progress display and summary.

The live display is run for real: `python -m discussions turn` in a pseudo-terminal of a given
size, its output replayed on a small screen model that knows the few escape codes the display
uses (and fails on any other). Plain output is checked through CliRunner (a pipe).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.cli.progress import Progress, fit
from discussions.engine.turn.outcomes import Attempt, ParticipantOutcome, TurnEvent

from ..conftest import script_command, write
from ..support.terminal import run_in_terminal

REASON = "3 of 3 READY (threshold 0.67)"
INJECTION = "\x1b]0;PWNED\x07\x1b[2J"

# A provider that answers only once a gate file exists: no sleeps, no timing in the tests.
GATED = """\
import os, sys, time
sys.stdin.read()
gate, answer = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 60
while not os.path.exists(gate) and time.monotonic() < deadline:
    time.sleep(0.02)
sys.stdout.write(answer)
"""


def run(*args: str, input: str | None = None) -> object:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def answer(vote: str | None, text: str = "Looks fine.") -> str:
    return json.dumps({"comment": text, "vote": vote})


def participant(project: Path, alias: str, name: str, hint: str) -> None:
    write(
        project / "participants" / f"{alias}.yaml",
        f"name: {name}\nalias: {alias}\nrole: Reviewer\npersonality: p\nprovider_hint: {hint}\n",
    )


def setup_turn(project: Path, providers_file, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """Three participants: one answers at once, one fails over to a working provider, one
    waits for the gate file `tmp_path/gate`. Returns the gate path."""
    gated = tmp_path / "gated.py"
    gated.write_text(GATED, encoding="utf-8")
    gate = tmp_path / "gate"
    providers_file(
        {
            "quick": script_command("answer.py", answer("READY")),
            "broken": script_command("fail.py", "2", f"model overloaded {INJECTION}\n"),
            "backup": script_command("answer.py", answer("CHANGES")),
            "slow": " ".join([sys.executable, str(gated), str(gate), json.dumps(answer("READY"))]),
        }
    )
    write(project / "discussions.yaml", "providers:\n  default: backup\n  fallback: []\n")
    participant(project, "architect", "AI-Architect", "quick")
    participant(project, "security", "AI-Security", "broken")
    participant(project, "pragmatist", "AI-Pragmatist", "slow")
    assert run("new", "Auth", "--context", "Users need to log in.").exit_code == 0  # type: ignore[attr-defined]
    return gate


# -- a pseudo-terminal and a screen -------------------------------------------------------


class Screen:
    """Replays terminal output: text, CR, LF and the escape codes the display uses.
    Anything else (an unknown or injected escape sequence) fails the test."""

    CSI = re.compile(r"\x1b\[([?0-9;]*)([A-Za-z])")

    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[list[str]] = [[]]
        self.row = 0
        self.col = 0
        self.wrapped: list[int] = []
        """Rows that overflowed into the next one."""

    def feed(self, text: str) -> None:
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                m = self.CSI.match(text, i)
                assert m, f"unexpected escape sequence {text[i : i + 12]!r}"
                self._csi(m.group(1), m.group(2))
                i = m.end()
                continue
            if ch == "\r":
                self.col = 0
            elif ch == "\n":
                self.row += 1
                while len(self.lines) <= self.row:
                    self.lines.append([])
            else:
                assert ch >= " " and ch != "\x7f", f"control character {ch!r} reached the terminal"
                if self.col >= self.width:
                    self.wrapped.append(self.row)
                    self.row, self.col = self.row + 1, 0
                    while len(self.lines) <= self.row:
                        self.lines.append([])
                line = self.lines[self.row]
                line.extend(" " * (self.col - len(line) + 1))
                line[self.col] = ch
                self.col += 1
            i += 1

    def _csi(self, params: str, final: str) -> None:
        n = int(params) if params.isdigit() else 1
        if final == "F":
            self.row, self.col = max(self.row - n, 0), 0
        elif final == "J" and params in ("", "0"):
            del self.lines[self.row][self.col :]
            del self.lines[self.row + 1 :]
        elif final == "K" and params == "2":
            self.lines[self.row] = []
        elif final == "m" or (final in "hl" and params == "?25"):
            pass
        else:
            raise AssertionError(f"unexpected escape code {params!r}{final}")

    @property
    def text(self) -> list[str]:
        return ["".join(line).rstrip() for line in self.lines]


def final_screen(output: str, width: int) -> Screen:
    screen = Screen(width)
    screen.feed(output)
    return screen


# -- live display -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("width", [52, 120])
def test_live_display_fits_shows_fallover_and_keeps_final_frame(
    width: int, isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    run_ = run_in_terminal(
        ["turn", "auth.md", "@architect", "@security", "@pragmatist"],
        width,
        env={"NO_COLOR": ""},
        when=("2/3 done", gate.touch),  # the slow one is still asking while two are done
    )
    out = run_.output
    assert run_.code == 0, out
    assert run_.triggered  # a frame showed progress before the slow answer
    screen = final_screen(out, width)
    lines = screen.text
    start = next(i for i, line in enumerate(lines) if line.startswith("discussions turn:"))
    assert not set(screen.wrapped) & set(range(start, start + 4))
    assert all(len(line) < width for line in lines[: start + 4]), lines
    header, *rows = lines[start : start + 4]
    assert re.match(r"discussions turn: 3/3 done in \d+\.\ds$", header), header
    assert rows[0].startswith("  ✓ AI-Architect ") and "READY" in rows[0]
    assert rows[1].startswith("  ✓ AI-Security ")
    assert rows[2].startswith("  ✓ AI-Pragmatist ")
    assert re.search(r"\d+\.\ds +CHANGES", rows[1])
    expected = "CHANGES  broken ✗ exited with status 2 → backup"
    if width >= 100:
        assert rows[1].endswith(expected), rows[1]
        assert rows[0].endswith("READY    quick")
    else:
        assert rows[1].endswith("CHANGES  broken ✗ → backup"), rows[1]  # reasons made room
    assert "\x1b[3" in out or "\x1b[1m" in out  # colours on (NO_COLOR is empty)
    assert "\x1b]0;PWNED" not in out  # the provider's stderr is escaped in the error line
    assert "Votes cast this turn: READY: 2, CHANGES: 1, REJECT: 0" in out


def test_live_display_no_color(isolated: Path, providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    gate.touch()
    run_ = run_in_terminal(
        ["turn", "auth.md", "@architect", "@security"], 80, env={"NO_COLOR": "1"}
    )
    out, code = run_.output, run_.code
    assert code == 0, out
    assert "\x1b[" in out  # still live: cursor movement
    assert not re.search(r"\x1b\[[0-9;]*m", out)  # but no colour
    assert "2/2 done in" in "\n".join(final_screen(out, 80).text)


@pytest.mark.slow
def test_term_dumb_gets_plain_lines(isolated: Path, providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    gate.touch()
    run_ = run_in_terminal(
        ["turn", "auth.md", "@architect", "@security"], 52, env={"TERM": "dumb", "NO_COLOR": ""}
    )
    out, code = run_.output, run_.code
    assert code == 0, out
    assert "\x1b" not in out.replace("\\x1b", "")
    assert "Invoking AI-Architect (quick)..." in out
    assert "AI-Security: broken: exited with status 2" in out
    assert "(model overloaded); trying the next provider" in out  # its terminal codes dropped


@pytest.mark.slow
@pytest.mark.parametrize("command", ["turn", "run"])
def test_no_progress_gives_plain_lines_on_a_terminal(
    command: str, isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    gate.touch()
    args = [command, "auth.md", "@architect", "@security", "--no-progress"]
    args += ["--rounds", "1"] if command == "run" else []
    run_ = run_in_terminal(args, 80, env={"NO_COLOR": ""})
    out, code = run_.output, run_.code
    assert code == 0, out
    assert not re.search(r"\x1b\[(\d*[FJK]|\?25)", out), out  # nothing redrawn in place
    assert "Invoking AI-Architect (quick)..." in out
    assert "discussions turn:" not in out


@pytest.mark.slow
def test_failed_participant_shows_what_to_do(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    setup_turn(isolated, providers_file, tmp_path)
    write(isolated / "discussions.yaml", "providers:\n  default: broken\n  fallback: []\n")
    run_ = run_in_terminal(["turn", "auth.md", "@security"], 120, env={"NO_COLOR": "1"})
    out, code = run_.output, run_.code
    assert code == 1
    lines = final_screen(out, 120).text
    assert any(
        line.startswith("  ✗ AI-Security ")
        and "failed   broken ✗ exited with status 2 → nothing left to try" in line
        for line in lines
    ), lines
    assert "discussions turn: 1/1 done, 1 failed in" in "\n".join(lines)
    assert any(
        line.startswith("No configured provider left to try for AI-Security: add a fallback")
        for line in lines
    ), lines
    assert "\x1b]0;PWNED" not in out
    assert any("Error: AI-Security got no answer: broken: exited with status 2" in x for x in lines)


@pytest.mark.slow
def test_live_row_updates_when_its_answer_arrives(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    # The slow participant first: the others' rows must still turn done while it waits.
    run_ = run_in_terminal(
        ["turn", "auth.md", "@pragmatist", "@architect", "@security"],
        80,
        when=("2/3 done", gate.touch),
        when_within=30,
    )
    assert run_.code == 0 and run_.triggered, run_.output
    # The first frame that said 2/3: the slow one, listed first, still asking.
    out = run_.output
    end = out.index("2/3 done")
    for _ in range(4):  # the header and three rows
        end = out.index("\n", end) + 1
    header, *rows = final_screen(out[:end], 80).text[-5:-1]
    assert header.startswith("discussions turn: 2/3 done, ")
    assert rows[0].startswith("  ") and rows[0][2] not in "✓✗" and "AI-Pragmatist" in rows[0]
    assert rows[1].startswith("  ✓ AI-Architect") and rows[2].startswith("  ✓ AI-Security")


# -- plain output (a pipe) ----------------------------------------------------------------


def test_plain_output_is_one_line_per_event(isolated: Path, providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = setup_turn(isolated, providers_file, tmp_path)
    gate.touch()
    r = run("turn", "auth.md", "@security")
    assert r.exit_code == 0  # type: ignore[attr-defined]
    assert r.output.splitlines()[:4] == [  # type: ignore[attr-defined]
        "Invoking AI-Security (broken)...",
        "  AI-Security: broken: exited with status 2 (model overloaded); trying the next provider",
        "Invoking AI-Security (backup)...",
        "  AI-Security: posted via backup after broken failed in "
        + r.output.splitlines()[3].split(" in ")[-1],  # type: ignore[attr-defined]
    ]
    assert "\x1b" not in r.output  # type: ignore[attr-defined]


def test_plain_output_says_when_nothing_is_left(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    setup_turn(isolated, providers_file, tmp_path)
    write(isolated / "discussions.yaml", "providers:\n  default: broken\n  fallback: []\n")
    r = CliRunner().invoke(cli, ["turn", "auth.md", "@security"])
    assert r.exit_code == 1
    assert (
        "no configured provider left to try — add a fallback under providers.fallback in "
        "discussions.yaml (see `discussions providers list`)" in r.output
    )
    assert "trying the next provider" not in r.output
    assert "\x1b" not in r.output
    assert (
        "Error: AI-Security got no answer: broken: exited with status 2 (model overloaded)"
        in r.output
    )


def test_forced_provider_hint_says_it_has_no_fallback(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    setup_turn(isolated, providers_file, tmp_path)
    r = CliRunner().invoke(cli, ["turn", "auth.md", "@architect", "--provider", "broken"])
    assert r.exit_code == 1
    assert (
        "no configured provider left to try — --provider broken has no fallback; leave it out"
        in r.output
    )
    assert "providers.fallback" not in r.output


def test_notes_from_answers_are_escaped(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file({"odd": script_command("answer.py", f"Plain text {INJECTION} without a vote")})
    write(isolated / "discussions.yaml", "providers:\n  default: odd\n  fallback: []\n")
    run("new", "Auth")
    r = run("turn", "auth.md", "@architect")
    assert r.exit_code == 0  # type: ignore[attr-defined]
    assert "\x1b" not in r.output  # type: ignore[attr-defined]


def test_timeout_has_no_short_option(isolated: Path) -> None:
    run("new", "Auth")
    r = CliRunner().invoke(cli, ["turn", "auth.md", "@architect", "-t", "5"])
    assert r.exit_code == 2 and "No such option '-t'" in r.output
    r = CliRunner().invoke(cli, ["turn", "auth.md", "@architect", "--timeout", "5", "-p", "mock"])
    assert r.exit_code == 0, r.output


# -- the summary --------------------------------------------------------------------------

TWO_VOTES = """\
name: two-votes
title: Two votes
description: A vote that moves on by itself when it reaches consensus.
participants: [architect, security, pragmatist]
status: OPEN
phases:
  - id: first_vote
    title: First vote
    instructions: Vote.
    voting_mode: true
    auto_trigger: consensus
    next: second_vote
  - id: second_vote
    title: Second vote
    instructions: Vote again.
    voting_mode: true
    auto_trigger: null
    next: null
body: |
  # {title}

  ## Context
  {context}
"""


def test_summary_explains_votes_reset_by_an_automatic_phase_change(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    write(isolated / "templates" / "two-votes.yaml", TWO_VOTES)
    providers_file({"approve": script_command("answer.py", answer("READY"))})
    write(isolated / "discussions.yaml", "providers:\n  default: approve\n  fallback: []\n")
    assert run("new", "Ship", "--template", "two-votes", "--context", "x").exit_code == 0  # type: ignore[attr-defined]
    r = run("turn", "ship.md", "@all")
    assert r.exit_code == 0  # type: ignore[attr-defined]
    out = r.output.splitlines()  # type: ignore[attr-defined]
    at = out.index("Discussion updated with 3 new comments.")
    assert out[at + 1 :] == [
        "Votes cast this turn: READY: 3, CHANGES: 0, REJECT: 0",
        "Who answered:",
        "  AI-Architect: approve",
        "  AI-Security: approve",
        "  AI-Pragmatist: approve",
        f"Advanced to phase: second_vote (consensus reached ({REASON}))",
        "The phase moved to second_vote, so votes restart there (none cast yet).",
        "Consensus in second_vote: not reached (no votes yet)",
    ]
    assert "Votes: READY: 0" not in r.output  # type: ignore[attr-defined]


def test_summary_without_phase_change_shows_votes_and_consensus(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file({"against": script_command("answer.py", answer("CHANGES"))})
    write(isolated / "discussions.yaml", "providers:\n  default: against\n  fallback: []\n")
    run("new", "Auth")
    r = run("turn", "auth.md", "@architect", "@security")
    assert "Votes: READY: 0, CHANGES: 2, REJECT: 0" in r.output  # type: ignore[attr-defined]
    assert "Consensus: not reached" in r.output  # type: ignore[attr-defined]
    assert "votes restart" not in r.output  # type: ignore[attr-defined]


# -- the display as a unit: frames from events, in any order ------------------------------


class Sink:
    encoding = "utf-8"

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def outcome(alias: str, name: str, vote: str | None, provider: str = "p") -> ParticipantOutcome:
    return ParticipantOutcome(alias, name, "posted", provider, duration=1.5, vote=vote)


def test_rows_update_from_done_events_in_any_order() -> None:
    p = Progress(Sink(), live=False, expected=[("a", "A"), ("b", "B"), ("c", "C")], color=False)
    for alias in "abc":
        p(TurnEvent("start", alias, alias.upper(), "p"))
    p(TurnEvent("done", "c", "C", "p", outcome=outcome("c", "C", "READY")))
    frame = p.frame(80)
    assert frame[0].startswith("discussions turn: 1/3 done, ")
    assert "READY" in frame[3] and "READY" not in frame[1] + frame[2]
    p(TurnEvent("done", "a", "A", "p", outcome=outcome("a", "A", "CHANGES")))
    assert p.frame(80)[0].startswith("discussions turn: 2/3 done, ")
    assert "CHANGES" in p.frame(80)[1]


def test_waiting_and_failed_over_rows() -> None:
    p = Progress(Sink(), live=False, expected=[("a", "A"), ("b", "B")], color=False)
    p(TurnEvent("start", "a", "A", "codex"))
    p(TurnEvent("attempt_failed", "a", "A", "codex", "codex: timed out after 5s; killed", 1))
    p(TurnEvent("start", "a", "A", "claude-haiku"))
    rows = p.frame(200)
    assert "codex ✗ timed out after 5s → claude-haiku" in rows[1]
    assert rows[2].endswith("waiting")
    o = outcome("a", "A", None, "claude-haiku")
    o.attempts.append(Attempt("codex", "timed out after 5s"))
    p(TurnEvent("done", "a", "A", "claude-haiku", outcome=o))
    assert "no vote  codex ✗ timed out after 5s → claude-haiku" in p.frame(200)[1]


def test_narrow_rows_drop_failure_details_before_the_answering_provider() -> None:
    p = Progress(Sink(), live=False, expected=[("a", "A")], color=False)
    p(TurnEvent("start", "a", "A", "claude-sonnet"))
    p(TurnEvent("attempt_failed", "a", "A", "claude-sonnet", "claude-sonnet: not installed", 0))
    p(TurnEvent("start", "a", "A", "mock"))
    assert p.frame(80)[1].endswith("claude-sonnet ✗ not installed → mock")
    assert p.frame(50)[1].endswith("claude-sonnet ✗ → mock")
    assert p.frame(42)[1].endswith("1 failed → mock")
    # Narrower still, the providers move under the participant (nothing is cut).
    assert p.frame(30)[1:] == ["  ⠋ A     0.0s  asking", "    claude-sonnet ✗ → mock"]
    assert p.frame(20)[2] == "    1 failed → mock"
    assert p.frame(12)[2] == "    mock"  # the provider asked now before the failures


def test_every_line_fits_any_width() -> None:
    p = Progress(Sink(), live=False, expected=[("a", "名前がとても長い参加者")], color=True)
    p(TurnEvent("start", "a", "名前がとても長い参加者", "provider-with-a-long-name"))
    for width in range(1, 60):
        for line in p.frame(width):
            plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
            assert sum(2 if "\u3000" <= ch <= "\u9fff" else 1 for ch in plain) <= max(width - 1, 1)


def test_fit_cuts_on_text_not_on_styles() -> None:
    assert fit([("abc", {}), ("def", {"fg": "red"})], 4, "…") == [("abc", {}), ("…", {"fg": "red"})]
    assert fit([("ab", {})], 5, "…") == [("ab", {})]


def test_live_frame_on_a_stream_redraws_in_place() -> None:
    sink = Sink()
    with Progress(sink, live=True, expected=[("a", "A")], color=False) as p:
        p(TurnEvent("start", "a", "A", "p"))
        p(TurnEvent("done", "a", "A", "p", outcome=outcome("a", "A", "READY")))
    out = "".join(sink.parts)
    screen = Screen(80)
    screen.feed(out.replace("\n", "\r\n"))  # as a terminal's line discipline does
    assert re.fullmatch(r"discussions turn: 1/1 done in \d+\.\ds", screen.text[0])
    assert screen.text[1:] == ["  ✓ A     1.5s  READY    p", ""]
    assert out.endswith("\x1b[?25h")


# -- no AI CLI installed: one note per turn -------------------------------------------------

NO_CLI = "No AI CLI is installed (claude-sonnet needs `claude`)"


@pytest.fixture
def no_ai_cli(isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH without any AI CLI (this Python's folder and the system's basics only)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to("/usr/bin/git")
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent)]))
    assert run("new", "Auth", "--context", "Users need to log in.").exit_code == 0  # type: ignore[attr-defined]
    return isolated


def test_no_ai_cli_is_said_once_per_turn_in_plain_lines(no_ai_cli: Path) -> None:
    r = run("turn", "auth.md", "@architect", "@security", "@pragmatist")
    out = r.output  # type: ignore[attr-defined]
    assert r.exit_code == 0, out  # type: ignore[attr-defined]
    notes = [line for line in out.splitlines() if NO_CLI in line]
    assert len(notes) == 1, out
    assert notes[0].startswith("Note: ") and "install Claude Code (`claude`)" in notes[0]
    assert "providers.default in discussions.yaml" in notes[0]
    assert "not installed" not in out and "no configured provider left" not in out
    assert "(claude-sonnet)..." not in out
    assert out.count("Invoking ") == 3 and out.count("posted via mock in ") == 3
    # A run says it once, not once per round.
    r = run("run", "auth.md", "--rounds", "2")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert r.output.count(NO_CLI) == 1, r.output  # type: ignore[attr-defined]
    assert "Round 2" in r.output and "not installed" not in r.output  # type: ignore[attr-defined]


@pytest.mark.slow
def test_no_ai_cli_live_rows_show_the_mock_and_one_note(no_ai_cli: Path) -> None:
    run_ = run_in_terminal(["turn", "auth.md"], 100, env={"NO_COLOR": "1"})
    assert run_.code == 0, run_.output
    lines = final_screen(run_.output, 100).text
    start = next(i for i, line in enumerate(lines) if line.startswith("discussions turn:"))
    rows = lines[start + 1 : start + 4]
    assert all(re.match(r"  ✓ AI-\w+ +\d+\.\ds +\w+ +mock$", row) for row in rows), rows
    assert "not installed" not in run_.output and "nothing left" not in run_.output
    notes = [line for line in lines if NO_CLI in line]
    assert len(notes) == 1 and lines.index(notes[0]) > start + 3, lines


# -- narrow terminals ---------------------------------------------------------------------

FRAME_START = re.compile(r"\x1b\[\d+F\x1b\[J")


def streaming_setup(project: Path, providers_file, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """Architect answers at once; security's provider fails, its fallback streams a line and
    waits; pragmatist's provider streams a line and waits. Both wait for the returned gate."""
    gate = tmp_path / "gate"
    slow = "slow_print.py"
    providers_file(
        {
            "quick": script_command("answer.py", answer("READY")),
            "broken": script_command("fail.py", "2", "model overloaded\n"),
            "stream-one": script_command(
                slow, "0", "SEC-TEXT tokens live too long", "VOTE: CHANGES"
            ),
            "stream-two": script_command(slow, "0", "PRAG-TEXT ship it in May", "VOTE: READY"),
        }
    )
    write(project / "discussions.yaml", "providers:\n  default: stream-one\n  fallback: []\n")
    participant(project, "architect", "AI-Architect", "quick")
    participant(project, "security", "AI-Security", "broken")
    participant(project, "pragmatist", "AI-Pragmatist", "stream-two")
    assert run("new", "Auth", "--context", "Users need to log in.").exit_code == 0  # type: ignore[attr-defined]
    return gate


@pytest.mark.slow
@pytest.mark.parametrize("width", [52, 40])
def test_narrow_live_display_keeps_participant_state_and_streamed_text(
    width: int, isolated: Path, providers_file, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    gate = streaming_setup(isolated, providers_file, tmp_path)
    monkeypatch.setenv("SLOW_PRINT_GATE", str(gate))
    run_ = run_in_terminal(
        ["turn", "auth.md", "@architect", "@security", "@pragmatist"],
        width,
        env={"NO_COLOR": "1"},
        when=(lambda out: b"SEC-TEXT" in out and b"PRAG-TEXT" in out, gate.touch),
        when_within=30,
    )
    out = run_.output
    assert run_.code == 0 and run_.triggered, out
    # The screen as it was when both answers were streaming: up to the end of the first frame
    # that showed both texts.
    both = max(out.index("SEC-TEXT"), out.index("PRAG-TEXT"))
    end = m.start() if (m := FRAME_START.search(out, both)) else len(out)
    screen = final_screen(out[:end], width)
    lines = [line for line in screen.text if line]
    start = max(i for i, line in enumerate(lines) if line.startswith("discussions turn:"))
    frame = lines[start:]
    assert not screen.wrapped, frame
    assert all(len(line) < width for line in frame), frame
    assert "AI-Architect" in frame[1]
    sec = next(i for i, line in enumerate(frame) if "AI-Security" in line)
    prag = next(i for i, line in enumerate(frame) if "AI-Pragmatist" in line)
    assert "writing" in frame[sec] and "writing" in frame[prag]
    # Each running participant's latest text is in view, right under it.
    assert "SEC-TEXT" in frame[sec + 1], frame
    assert "stream-one" in frame[sec] + frame[sec + 1], frame
    assert "PRAG-TEXT" in frame[prag + 1] or "PRAG-TEXT" in frame[prag], frame
    if width >= 52:  # narrower, the failed provider gives way to the text (the end shows it)
        assert "broken ✗" in frame[sec + 1], frame
    # The final frame: every participant done, one line each where it fits.
    final = final_screen(out, width).text
    start = max(i for i, line in enumerate(final) if line.startswith("discussions turn:"))
    assert re.match(r"discussions turn: 3/3 done in \d+\.\ds$", final[start])
    end = final.index("", start)
    assert all(len(line) < width for line in final[start:end]), final[start:end]
    assert any(line.startswith("  ✓ AI-Security ") for line in final[start:])
