"""One rule for echoes, in every answer the engine reads: a line counts as an echo when the
prompt attributes it to someone else or to the engine's instructions; a participant repeating
its own earlier words still means them (`syntax.answers.Echo`). Providers are real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions import Discussion
from discussions.engine.turn.followup import read_vote
from discussions.syntax.answers import ONLY_ECHO, parse_response, prompt_echo
from discussions.syntax.markers import normalise_vote

from ..conftest import code, out, result_of, run, script_command, write
from ..support.documentation import TEMPLATE as DOCS_TEMPLATE

ROB = "Q: who rotates the signing keys?\nTODO: write the key rotation runbook\nVOTE: READY"


@pytest.fixture
def voting(isolated: Path, providers_file):  # type: ignore[no-untyped-def]
    """voting(command): a discussion in its vote where Rob asked, took a task and voted, and
    every participant is answered by `command`; returns its path."""

    def make(command: str) -> Path:
        providers_file({"model": command})
        write(isolated / "discussions.yaml", "providers:\n  default: model\n  detect: false\n")
        assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
        assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
        assert code(run("comment", "auth.md", ROB, "--author", "Rob")) == 0
        return isolated / "discussions" / "auth.md"

    return make


def test_a_persons_words_echoed_are_not_the_models(voting) -> None:  # type: ignore[no-untyped-def]
    """Item 10: the echo filter applies in a turn. A model that answers with Rob's comment
    gets no question, task or vote of Rob's, and no vote moves the discussion."""
    path = voting(script_command("answer.py", ROB))
    r = run("turn", "auth.md")
    assert code(r) == 1, out(r)  # nobody answered
    d = Discussion.load(path)
    assert d.votes == {"Rob": "READY"} and d.status == "OPEN"
    assert [(q.author, q.text) for q in d.questions] == [("Rob", "who rotates the signing keys?")]
    assert [t.author for t in d.todos] == ["Rob"]
    assert not [c for c in d.comments if c.author.startswith("AI-")]
    assert "<!-- PASS:" not in path.read_text("utf-8")  # an echo is never a pass either
    assert path.read_text("utf-8").count("<!-- FAILED: AI-") == 3  # each: no answer, and why
    assert ONLY_ECHO in path.read_text("utf-8")
    assert out(r).count(f"model: {ONLY_ECHO}") >= 3  # each participant, said as it happens


def test_an_answer_that_only_repeats_its_prompt_is_no_pass(voting) -> None:  # type: ignore[no-untyped-def]
    path = voting(script_command("parrot.py"))
    assert code(run("turn", "auth.md", "@architect")) == 1  # no answer
    text = path.read_text("utf-8")
    assert "<!-- PASS:" not in text
    assert "<!-- FAILED: AI-Architect" in text and ONLY_ECHO in text
    d = Discussion.load(path)
    assert d.votes == {"Rob": "READY"} and len(d.comments) == 1


def test_a_vote_of_ones_own_next_to_a_persons_still_counts(voting) -> None:  # type: ignore[no-untyped-def]
    """Rob's short ``VOTE: READY`` line, said again under the model's own words, is its vote."""
    path = voting(script_command("answer.py", "Rotation is covered by the runbook.\n\nVOTE: READY"))
    assert code(run("turn", "auth.md", "@architect")) == 0
    assert Discussion.load(path).votes == {"Rob": "READY", "AI-Architect": "READY"}


def test_a_reviewer_restating_its_own_objection_still_votes(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Item 11: a reviewer that restates its earlier objection word for word (reason,
    ``CONCERN:``, ``VOTE: REJECT``) means it: the loop gets its votes and ends."""
    write(isolated / "templates" / "docs.yaml", DOCS_TEMPLATE.format(revisions=1))
    plan = json.dumps({"voters": "restate"})
    providers_file({"standin": script_command("doc_loop.py", plan, str(tmp_path / "memory"))})
    write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    assert code(run("new", "Plan", "--template", "docs")) == 0
    assert code(run("close", "plan.md", "--status", "DECIDED")) == 0  # `draft` documents decisions
    r = run("draft", "plan.md", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert (res["stage"], res["version"]) == ("unapproved", 2), res
    d = Discussion.load(isolated / "discussions" / "plan.md")
    restated = [c for c in d.comments if c.author == "AI-Security"]
    assert len(restated) == 2 and all(c.vote == "REJECT" for c in restated)
    assert [m.kind for m in restated[1].markers] == ["CONCERN", "VOTE"]
    assert "no new vote came in" not in out(r)


def test_a_list_of_the_choices_is_no_vote(isolated: Path, providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Item 12: a follow-up answered with the choices it was offered has chosen nothing."""
    weak = script_command("weak.py", "I have thoughts.", "READY, CHANGES or REJECT", str(tmp_path))
    providers_file({"weak": weak})
    write(isolated / "discussions.yaml", "providers:\n  default: weak\n  detect: false\n")
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    assert code(run("turn", "auth.md", "@architect")) == 0
    c = Discussion.load(isolated / "discussions" / "auth.md").comments[-1]
    assert c.vote is None and c.meta["follow-up"] == "vote none"


@pytest.mark.parametrize(
    ("value", "vote"),
    [
        ("READY, CHANGES or REJECT", None),
        ("READY/CHANGES/REJECT", None),
        ("ready or reject", None),
        ("**CHANGES** | REJECT", None),
        ("READY", "READY"),
        ("Ready.", "READY"),
        ("READY (no CHANGES needed)", "READY"),
        ("REJECT - the rollback is missing", "REJECT"),
    ],
)
def test_normalise_vote_reads_a_choice_not_a_list(value: str, vote: str | None) -> None:
    assert normalise_vote(value) == vote


# -- the rule as a property ---------------------------------------------------------------------

OTHERS = [
    "Name: Rob",
    "Q: who rotates the signing keys every month?",
    "TODO: write the key rotation runbook",
    "VOTE: READY",
]
OWN = [
    "Name: AI-Architect",
    "The rotation is not covered by the runbook yet.",
    "CONCERN: nobody owns the signing keys",
    "VOTE: REJECT",
]
ENGINE = ["## Your task", "Give your perspective on the discussion so far.", "## Response format"]
PROMPT = "\n".join(
    [*ENGINE[:2], "<discussion>", *OTHERS, "", "---", "", *OWN, "</discussion>", ENGINE[2]]
)
ECHO = prompt_echo(PROMPT, quoted=[*OTHERS, "", "---", "", *OWN], own=OWN)
FRESH = st.sampled_from(
    [
        "I would rotate the keys with the deploy.",
        "Q: does the runbook cover revocation?",
        "DECISION: rotate the signing keys monthly",
        "VOTE: CHANGES",
        "",
    ]
)


def _said(text: str) -> tuple[object, ...]:
    r = parse_response(text, ECHO)
    return (r.vote, r.no_response, r.comment)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRESH, max_size=5), st.lists(st.sampled_from(OWN[1:]), min_size=1, max_size=3))
def test_ones_own_words_are_always_kept(fresh: list[str], own: list[str]) -> None:
    """A participant's earlier lines, repeated among its new ones, are all recorded."""
    r = parse_response("\n".join([*fresh, *own]), ECHO)
    kept = r.comment + (f"\nVOTE: {r.vote}" if r.vote else "")
    for line in own:
        assert line in kept


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRESH, max_size=5), st.integers(0, 5), st.sampled_from(["engine", "others"]))
def test_a_passage_of_someone_elses_changes_nothing(fresh: list[str], at: int, whose: str) -> None:
    """The engine's instructions or someone else's comment, copied in whole anywhere in an
    answer, take nothing from and add nothing to what the answer says."""
    passage = ENGINE[:2] if whose == "engine" else OTHERS[1:]
    at = min(at, len(fresh))
    mixed = [*fresh[:at], "", *passage, "", *fresh[at:]]
    alone = "\n".join(fresh)
    assert _said("\n".join(mixed))[:2] == _said(alone)[:2]
    assert _said("\n".join(mixed))[2].split() == _said(alone)[2].split()


@pytest.mark.parametrize(
    ("answer", "vote"),
    [
        ("READY, CHANGES or REJECT", None),
        ("VOTE: READY, CHANGES or REJECT", None),
        ("Answer with one line: VOTE: READY, CHANGES or REJECT", None),
        ("Ready to answer your question.", None),
        ("Ready when you are!", None),
        ("READY", "READY"),
        ("**Changes.**", "CHANGES"),
        ("REJECT - there is no rollback plan", "REJECT"),
        ("I have doubts.\nVOTE: CHANGES", "CHANGES"),
    ],
)
def test_a_follow_up_answer_is_a_vote_only_when_it_chose(answer: str, vote: str | None) -> None:
    assert read_vote(answer) == vote
