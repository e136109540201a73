"""The language server over a real stdio connection: a test editor types, asks and hovers."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from ..conftest import code, run, script_command
from ..support.waiting import running_below, wait_for_async
from .support import TIMEOUT, editor


def _discussion(isolated: Path, title: str = "Feature") -> Path:
    assert code(run("new", title, "--participants", "security,architect,pragmatist")) == 0
    return isolated / "discussions" / f"{title.lower()}.md"


@pytest.mark.slow
def test_a_misspelt_mention_typed_gets_a_diagnostic_with_a_quick_fix(isolated: Path) -> None:
    path = _discussion(isolated)

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            assert await ed.diagnostics(uri) == []
            typed = ed.texts[uri] + "\nName: Rob\n\nWhat do you think, @securty?\n"
            ed.type(uri, typed)
            [found] = [d for d in await ed.diagnostics(uri) if d.code == "mention-typo"]
            assert found.message == "@securty matches no participant; did you mean @security?"
            assert found.severity == types.DiagnosticSeverity.Warning
            line = typed.split("\n")[found.range.start.line]
            assert line[found.range.start.character : found.range.end.character] == "@securty"
            actions = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    found.range,
                    types.CodeActionContext([found]),
                )
            )
            fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit)
            assert fix.title == "Change to @security" and fix.kind == "quickfix"
            assert fix.edit is not None
            ed.apply(types.ApplyWorkspaceEditParams(fix.edit))
            assert "What do you think, @security?" in ed.texts[uri]
            assert [d for d in await ed.diagnostics(uri) if d.code == "mention-typo"] == []
            assert path.read_text(encoding="utf-8") != ed.texts[uri]  # typed, never saved

    asyncio.run(scenario())


def _at(text: str, needle: str, after: int = 0) -> types.Position:
    """The position just after `needle` (its first occurrence), plus `after` characters."""
    offset = text.index(needle) + len(needle) + after
    before = text[:offset].split("\n")
    return types.Position(len(before) - 1, len(before[-1]))


def test_completion_hover_outline_and_status_of_what_is_typed(isolated: Path) -> None:
    path = _discussion(isolated)
    text = path.read_text(encoding="utf-8") + (
        "\nName: Rob\n\nQ: should the cache be shared?\n\nVOTE: READY\n\n---\n\n"
        "Name: Ines\n\n> should the cache be shared?\n\nNo, @security decides.\n\nVOTE: \n"
    )
    path.write_text(text, encoding="utf-8")

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            doc = types.TextDocumentIdentifier(uri)

            async def complete(at: types.Position) -> list[str]:
                found = await ed.client.text_document_completion_async(
                    types.CompletionParams(doc, at)
                )
                assert isinstance(found, types.CompletionList)
                return [item.label for item in found.items]

            assert await complete(_at(text, "VOTE: \n", -1)) == ["READY", "CHANGES", "REJECT"]
            mentions = await complete(_at(text, "No, @"))
            assert "security" in mentions and "rob" in mentions  # a person who commented
            assert {"VOTE:", "Q:", "DECISION:", "--- Name:"} <= set(
                await complete(types.Position(_at(text, "No, @").line + 1, 0))
            )
            shown = await ed.client.text_document_hover_async(
                types.HoverParams(doc, _at(text, "VOTE: READY", -2))
            )
            assert shown is not None and isinstance(shown.contents, types.MarkupContent)
            assert "Votes in phase initial_feedback" in shown.contents.value
            assert "READY: 1" in shown.contents.value and "Rob: READY" in shown.contents.value
            mention = await ed.client.text_document_hover_async(
                types.HoverParams(doc, _at(text, "No, @sec"))
            )
            assert mention is not None and isinstance(mention.contents, types.MarkupContent)
            assert "@security" in mention.contents.value
            assert "waiting for an answer" in mention.contents.value
            outline = await ed.client.text_document_document_symbol_async(
                types.DocumentSymbolParams(doc)
            )
            assert outline is not None
            [phase] = outline
            assert isinstance(phase, types.DocumentSymbol) and phase.children
            assert phase.name == "Phase: initial_feedback"
            assert [(c.name, c.detail) for c in phase.children] == [
                ("Rob", "VOTE: READY"),
                ("Ines", ""),
            ]
            question = _at(text, "Q: should")
            refs = await ed.client.text_document_references_async(
                types.ReferenceParams(
                    context=types.ReferenceContext(False), text_document=doc, position=question
                )
            )
            ines = next(i for i, line in enumerate(text.split("\n")) if line == "Name: Ines")
            assert refs is not None and [r.range.start.line for r in refs] == [ines]
            symbols = await ed.client.workspace_symbol_async(types.WorkspaceSymbolParams("cache"))
            assert symbols is not None
            assert [s.name for s in symbols] == ["Q: should the cache be shared?"]
            status = ed.statuses[-1]
            assert status["phase"] == "initial_feedback"
            assert [p["alias"] for p in status["pending"]] == ["security"]
            assert "waiting for @security" in status["text"]

    asyncio.run(scenario())


def _ask(uri: str, command: str = "discussions.ask") -> types.ExecuteCommandParams:
    return types.ExecuteCommandParams(command, arguments=[uri])


@pytest.mark.slow
def test_asking_the_mentioned_participants_streams_progress_then_brings_in_the_answer(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    providers_file({"slow": script_command("slow_print.py", "0.3", "Use a lock.", "Then test it.")})
    path = _discussion(isolated)
    path.write_text(
        path.read_text(encoding="utf-8") + "\nName: Rob\n\n@security is this safe?\n",
        encoding="utf-8",
    )

    async def scenario() -> None:
        async with editor(isolated, "--provider", "slow") as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            saved = ed.texts[uri]
            ed.type(uri, saved + "\nmy unsaved thought\n")
            refused = await ed.client.workspace_execute_command_async(_ask(uri))
            assert "unsaved changes" in refused["refused"]
            assert "save it first" in ed.client.messages[-1].message
            assert path.read_text(encoding="utf-8") == saved  # the engine did not write
            ed.type(uri, saved)  # undone: the buffer is the saved file again
            result = await asyncio.wait_for(
                ed.client.workspace_execute_command_async(_ask(uri)), TIMEOUT
            )
            assert result["state"] == "done" and result["participants"] == ["security"]
            [reports] = ed.client.progress_reports.values()
            assert isinstance(reports[0], types.WorkDoneProgressBegin)
            assert reports[0].title == "Asking @security"
            steps = [r.message for r in reports[1:-1]]
            assert any("is answering" in (m or "") for m in steps)
            streamed = [m or "" for m in steps if "Use a lock." in (m or "")]
            assert streamed and "Then test it." not in streamed[0]  # text as it came
            assert isinstance(reports[-1], types.WorkDoneProgressEnd)
            on_disk = path.read_text(encoding="utf-8")
            assert on_disk.startswith(saved) and "Use a lock." in on_disk
            assert ed.texts[uri] == on_disk  # the answer was brought into the buffer
            assert ed.edits[-1].label == "discussions: what the engine appended"

    asyncio.run(scenario())


@pytest.mark.slow
def test_text_typed_while_a_turn_runs_is_never_overwritten(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    providers_file(
        {"slow": script_command("answer.py", '{"comment": "Later.", "vote": null}', "2")}
    )
    path = _discussion(isolated)
    path.write_text(
        path.read_text(encoding="utf-8") + "\nName: Rob\n\n@security please look\n",
        encoding="utf-8",
    )

    async def scenario() -> None:
        async with editor(isolated, "--provider", "slow") as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            asked = asyncio.ensure_future(ed.client.workspace_execute_command_async(_ask(uri)))
            # the turn runs: its provider (below the language server, below this test) answers
            await wait_for_async(lambda: running_below(os.getpid(), "answer.py"))
            typed = ed.texts[uri] + "\nstill typing\n"
            ed.type(uri, typed)
            result = await asyncio.wait_for(asked, TIMEOUT)
            assert result["state"] == "done"
            assert ed.texts[uri] == typed  # kept, not replaced by the file
            assert "Later." in path.read_text(encoding="utf-8")
            assert "your text is kept" in ed.client.messages[-1].message
            assert ed.edits == []

    asyncio.run(scenario())


@pytest.mark.slow
def test_advance_phase_and_insert_my_vote(isolated: Path) -> None:
    path = _discussion(isolated)

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            done = await ed.client.workspace_execute_command_async(_ask(uri, "discussions.advance"))
            assert done["phase"] != "initial_feedback"
            assert "PHASE-TRANSITION: initial_feedback ->" in ed.texts[uri]
            assert ed.texts[uri] == path.read_text(encoding="utf-8")
            engine = await ed.client.text_document_hover_async(
                types.HoverParams(
                    types.TextDocumentIdentifier(uri), _at(ed.texts[uri], "<!-- PHASE-TRAN")
                )
            )
            assert engine is not None and isinstance(engine.contents, types.MarkupContent)
            assert engine.contents.value.startswith("The phase changed here (initial_feedback")
            actions = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    types.Range(types.Position(0, 0), types.Position(0, 0)),
                    types.CodeActionContext([]),
                )
            )
            titles = [a.title for a in actions or []]
            assert "Advance phase" in titles and "Insert my vote: CHANGES" in titles
            vote = next(a for a in actions or [] if a.title == "Insert my vote: CHANGES")
            assert isinstance(vote, types.CodeAction) and vote.edit is not None
            ed.apply(types.ApplyWorkspaceEditParams(vote.edit))
            assert ed.texts[uri].split("\nName: ")[-1].endswith("\n\nVOTE: CHANGES\n\n---\n")
            assert await ed.diagnostics(uri) == []
            assert ed.statuses[-1]["consensus"] != "no votes"
            by_command = await ed.client.workspace_execute_command_async(
                types.ExecuteCommandParams("discussions.insertVote", [uri, "ready"])
            )
            assert by_command == {"applied": True}
            assert ed.texts[uri].split("\nName: ")[-1].endswith("\n\nVOTE: READY\n\n---\n")
            shown = await ed.client.workspace_execute_command_async(
                types.ExecuteCommandParams("discussions.status", [uri])
            )
            assert ed.client.messages[-1].message == shown["text"]
            assert shown["phase"] == done["phase"]

    asyncio.run(scenario())


@pytest.mark.slow
def test_diagnostics_match_discussions_check_on_every_fixture(isolated: Path) -> None:
    import json
    import shutil

    from ..conftest import FIXTURES, out

    folder = isolated / "discussions"
    folder.mkdir()
    paths = [Path(shutil.copy(f, folder)) for f in sorted(FIXTURES.glob("*.md"))]
    broken = folder / "broken.md"
    broken.write_text(
        "<!-- DISCUSSION -->\n<!-- Title: Broken -->\n<!-- Phase: nowhere -->\n\n"
        "---\n\nName: Rob\n\nVOTE: MAYBE\n\n<<<<<<< HEAD\n\nName: Ines\n\n@securty hi\n",
        encoding="utf-8",
    )
    paths.append(broken)
    severities = {1: "error", 2: "warning", 4: "hint"}

    async def scenario() -> dict[str, list[tuple[int, str, str]]]:
        seen: dict[str, list[tuple[int, str, str]]] = {}
        async with editor(isolated) as ed:
            for path in paths:
                uri = ed.open(path)
                found = await ed.diagnostics(uri)
                seen[path.name] = [
                    (d.range.start.line + 1, d.message, severities[int(d.severity or 0)])
                    for d in found
                ]
        return seen

    seen = asyncio.run(scenario())
    r = run("check", *[str(p) for p in paths], "--json")
    expected: dict[str, list[tuple[int, str, str]]] = {p.name: [] for p in paths}
    for p in json.loads(out(r)[out(r).index("[") :]):
        expected[Path(p["file"]).name].append((p["line"], p["message"], p["severity"]))
    assert seen == expected
    assert len(expected["broken.md"]) >= 4
    assert {s for *_, s in expected["broken.md"]} == {"error", "warning"}


@pytest.mark.slow
def test_settings_that_cannot_be_read_are_shown_on_the_file_not_crashed_on(
    isolated: Path,
) -> None:
    path = _discussion(isolated)
    (isolated / "discussions.yaml").write_text("providers: [\n", encoding="utf-8")

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            [problem] = await ed.diagnostics(uri)
            assert "discussions.yaml" in problem.message and "invalid YAML" in problem.message
            assert problem.severity == types.DiagnosticSeverity.Error

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_merge_conflict_line_offers_discussions_resolve(repo: Path) -> None:
    from ..support.git import git, markers_present, start_discussion, two_branches

    path = start_discussion(repo)
    git(repo, "config", "--remove-section", "merge.discussions")  # a clone without the driver
    two_branches(repo, path)
    git(repo, "checkout", "-q", "a")
    assert git(repo, "merge", "--no-edit", "b", check=False).returncode != 0
    assert markers_present(path.read_text(encoding="utf-8"))

    async def scenario() -> None:
        async with editor(repo) as ed:
            uri = ed.open(path)
            conflicts = [d for d in await ed.diagnostics(uri) if d.code == "merge-conflict"]
            assert conflicts and conflicts[0].severity == types.DiagnosticSeverity.Error
            assert "discussions resolve" in conflicts[0].message
            actions = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    conflicts[0].range,
                    types.CodeActionContext(conflicts[:1]),
                )
            )
            # Offered (lsprotocol's client reads a code action that holds a command as a
            # Command, so the test runs the command by its id).
            assert any(a.title.startswith("Resolve the merge") for a in actions or [])
            done = await ed.client.workspace_execute_command_async(
                types.ExecuteCommandParams("discussions.resolve", [uri])
            )
            assert done["resolved"] is True
            assert not markers_present(ed.texts[uri])
            assert ed.texts[uri] == path.read_text(encoding="utf-8")
            # Published when the editor took the edit, before the command's answer.
            assert [d for d in ed.client.diagnostics[uri] if d.code == "merge-conflict"] == []

    asyncio.run(scenario())
