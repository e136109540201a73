"""The after-answer steps: a runner runs the steps it is given, in order, once its answers are
in (`engine.turn.steps`); the list every runner gets is declared once, above the wings
(`engine.runner.STEPS`), so the turn and the wings below it know nothing of the council; and
reading an answer is pure (`syntax.answers`)."""

from __future__ import annotations

import ast
from pathlib import Path

from discussions import Runner
from discussions.engine.runner import STEPS
from discussions.engine.turn.steps import AfterAnswers, Step
from discussions.model.discussion import Discussion

from ..conftest import code, run, script_command, write

ENGINE = Path(__file__).resolve().parents[2] / "src" / "discussions" / "engine"
SYNTAX = ENGINE.parent / "syntax"


def test_a_runner_runs_the_steps_it_is_given_in_order_after_the_answers(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file({"quick": script_command("answer.py", '{"comment": "Fine.", "vote": null}')})
    write(isolated / "discussions.yaml", "providers:\n  default: quick\n  detect: false\n")
    assert code(run("new", "Steps")) == 0
    d = Discussion.load(isolated / "discussions" / "steps.md")
    seen: list[tuple[str, bool, int, int]] = []

    def record(name: str):  # type: ignore[no-untyped-def]
        def step(after: AfterAnswers) -> None:
            after.discussion.reload()
            count = len(after.discussion.comments)
            seen.append((name, after.heard, len(after.result.outcomes), count))

        return step

    steps = [Step("first", record("first")), Step("second", record("second"))]
    result = Runner(d.workspace, steps=steps).run_turn(d, ["architect", "security"])
    assert [o.status for o in result.outcomes] == ["posted", "posted"]
    assert seen == [("first", True, 2, 2), ("second", True, 2, 2)]
    assert result.changes == [] and result.evidence == []  # no other step ran


def test_every_runner_gets_the_default_steps_declared_once(isolated: Path) -> None:
    assert [s.name for s in STEPS] == [
        "evidence",
        "motion",
        "contrarian",
        "phases",
        "summary",
        "council-memory",
    ]
    assert Runner().steps == STEPS
    motion = next(s for s in STEPS if s.name == "motion")
    assert motion.loads == ("discussions.engine.council.motions",)  # loaded during the calls


def _imported(path: Path) -> list[str]:
    """What `path` imports (type-checking imports and module names in strings included), each
    resolved to a dotted name under `discussions`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ["discussions", *path.relative_to(ENGINE.parent).parent.parts]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join([*base, *([node.module] if node.module else [])])
            found += [name] + [f"{name}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("discussions.")
        ):
            found.append(node.value)
    return found


def test_the_turn_and_the_wings_below_it_know_nothing_of_the_council() -> None:
    knowing = {
        str(p.relative_to(ENGINE)): name
        for wing in ("turn", "prompt", "evidence")
        for p in sorted((ENGINE / wing).glob("*.py"))
        for name in _imported(p)
        if name.startswith(("discussions.engine.council", "discussions.engine.apply"))
    }
    assert knowing == {}


def test_reading_an_answer_is_pure() -> None:
    path = SYNTAX / "answers.py"
    imported = _imported(path)
    ours = [n for n in imported if n.startswith("discussions.")]
    assert ours and all(n.startswith("discussions.syntax.") for n in ours), ours
    stdlib = {n.split(".")[0] for n in imported if not n.startswith("discussions.")}
    allowed = {"__future__", "json", "math", "re", "bisect", "collections", "dataclasses", "typing"}
    assert stdlib <= allowed, stdlib
    text = path.read_text(encoding="utf-8")
    assert "open(" not in text and "Path" not in text and "subprocess" not in text
