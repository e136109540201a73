"""Streaming: provider output reported as it arrives; the answer still appended once, whole."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.cli.progress import SILENCE, Progress
from discussions.engine.runner import Runner
from discussions.engine.turn.outcomes import TurnEvent, latest_line, stream_reporter
from discussions.model.discussion import Discussion
from discussions.providers.base import ProviderRequest, ProviderSpec
from discussions.providers.command import CommandProvider
from discussions.providers.mock import MockProvider
from discussions.providers.streaming import codex_event_text, output_sink
from discussions.settings.workspace import Workspace

from ..conftest import script_command, write
from ..support.waiting import running_below


@pytest.mark.slow
def test_command_provider_streams_before_it_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"  # the stand-in prints its last line only once this exists
    monkeypatch.setenv("SLOW_PRINT_GATE", str(gate))
    seen: list[str] = []
    running_at_first: list[bool] = []

    def on_output(s: str) -> None:
        if not seen:
            running_at_first.append(bool(running_below(os.getpid(), "slow_print.py")))
        seen.append(s)
        gate.touch()

    spec = ProviderSpec("slow", script_command("slow_print.py", "0", "one", "two", "three"))
    text = CommandProvider(spec).complete(ProviderRequest("prompt", on_output=on_output))
    assert text == "one\ntwo\nthree\n"
    assert "".join(seen) == text
    assert len(seen) >= 2
    assert running_at_first == [True]  # the first line came while the provider still ran


def test_split_utf8_and_codex_events_are_decoded_as_they_arrive() -> None:
    got: list[str] = []
    feed = output_sink("text", got.append)
    data = "héllo ✓\n".encode()
    for i in range(len(data)):
        feed(data[i : i + 1])
    assert "".join(got) == "héllo ✓\n"
    got.clear()
    feed = output_sink("codex-jsonl", got.append)
    event = {"type": "item.completed", "item": {"type": "agent_message", "text": "Hi there"}}
    line = json.dumps(event) + "\n"
    feed(line[:10].encode())
    assert got == []
    feed(line[10:].encode() + b'{"type": "item.started", "item": {"type": "command_execution"}}\n')
    assert got == ["Hi there\n", "(command execution)\n"]
    assert codex_event_text("not json") == ""


def test_codex_provider_streams_agent_messages() -> None:
    got: list[str] = []
    spec = ProviderSpec("codex", script_command("codex_jsonl.py"), output="codex-jsonl")
    text = CommandProvider(spec).complete(ProviderRequest("p", on_output=got.append))
    assert text == '{"comment": "From codex.", "vote": "READY"}'
    assert got == ["(thinking) thinking...\n", text + "\n"]  # no raw JSON-lines events


def test_latest_line_and_reporter() -> None:
    assert latest_line("a\nb\n\n") == "b"
    assert latest_line("a\npart") == "part"
    reports: list[tuple[str, str]] = []
    on_output = stream_reporter(lambda line, text: reports.append((line, text)))
    on_output("first li")
    on_output("ne\nsecond")
    assert reports == [("first li", "first li"), ("second", "first line\nsecond")]


def test_mock_streams_its_comment_when_asked() -> None:
    got: list[str] = []
    answer = MockProvider().complete(ProviderRequest("prompt", on_output=got.append))
    assert len(got) > 3
    assert json.loads(answer)["comment"] == "".join(got).rstrip("\n")


def _discussion(project: Path, providers_file, command: str) -> Discussion:  # type: ignore[no-untyped-def]
    providers_file({"slow": command})
    write(project / "discussions.yaml", "providers:\n  default: slow\n  fallback: []\n")
    write(
        project / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: r\npersonality: p\nprovider_hint: slow\n",
    )
    assert CliRunner().invoke(cli, ["new", "Auth", "--context", "Log in."]).exit_code == 0
    return Discussion.load(project / "discussions" / "auth.md", Workspace.discover())


@pytest.mark.slow
def test_runner_reports_chunks_and_appends_the_answer_once(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    d = _discussion(
        isolated,
        providers_file,
        script_command(
            "slow_print.py", "0.1", "Thinking about it.", "STREAMED-ONCE", "VOTE: READY"
        ),
    )
    events: list[TurnEvent] = []
    lock = threading.Lock()

    def on_event(ev: TurnEvent) -> None:
        with lock:
            events.append(ev)

    result = Runner(Workspace.discover(), on_event=on_event).run_turn(d, ["architect"])
    assert [o.status for o in result.posted] == ["posted"]
    chunks = [e for e in events if e.kind == "chunk"]
    assert chunks and chunks[0].provider == "slow" and chunks[0].alias == "architect"
    assert chunks[-1].message == "VOTE: READY"
    assert "STREAMED-ONCE" in chunks[-1].text
    kinds = [e.kind for e in events]
    assert kinds.index("chunk") < kinds.index("done")
    assert d.path.read_text(encoding="utf-8").count("STREAMED-ONCE") == 1


class _Sink:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.encoding = "utf-8"

    def write(self, text: str) -> int:
        self.out.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_live_rows_show_the_latest_line_and_silence() -> None:
    p = Progress(_Sink(), live=False, expected=[("architect", "AI-Architect")], color=False)  # type: ignore[arg-type]
    p(TurnEvent("start", "architect", "AI-Architect", "claude"))
    p(TurnEvent("chunk", "architect", "AI-Architect", "claude", "Looking at the   schema now"))
    frame = p.frame(100)
    assert frame[1].endswith("claude → Looking at the schema now"), frame
    row = p.rows["architect"]
    assert row.heard is not None
    row.heard -= SILENCE + 1
    frame = p.frame(100)
    assert "silent for 2" in frame[1], frame


def test_plain_output_ignores_chunks() -> None:
    sink = _Sink()
    p = Progress(sink, live=False, expected=[("a", "A")], color=False)  # type: ignore[arg-type]
    p(TurnEvent("start", "a", "A", "x"))
    before = "".join(sink.out)
    p(TurnEvent("chunk", "a", "A", "x", "partial"))
    assert "".join(sink.out) == before


@pytest.mark.slow
def test_live_turn_shows_the_streamed_line_while_the_provider_runs(
    isolated: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    from ..support.terminal import run_in_terminal

    gate = tmp_path / "gate"
    _discussion(
        isolated,
        providers_file,
        script_command("slow_print.py", "0", "STREAM-LIVE line", "VOTE: READY"),
    )
    run_ = run_in_terminal(
        ["turn", "auth.md", "@architect"],
        100,
        env={"SLOW_PRINT_GATE": str(gate)},
        when=("STREAM-LIVE line", gate.touch),
    )
    assert run_.code == 0, run_.output
    assert run_.triggered  # shown before the provider finished (it waited for the gate)
    plain = run_in_terminal(["turn", "auth.md", "@architect", "--json"], 100)
    assert "STREAM-LIVE" not in plain.output.split("{", 1)[0]  # --json: no streamed lines
