"""The block-level three-way merge (discussions.git.merge): unit cases and property tests.

Files are written the way the engine writes them (format.join_blocks), then two sides append
comments, AI turns with metadata, phase transitions and status changes; the merge must keep
every comment exactly once, in the phase its author saw, with no new parse warning, the same
bytes whichever side is "ours", and CRLF files must merge like LF files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from discussions.engine.council.chair import render_fallback
from discussions.engine.council.deliberation import render_escalation, render_round, render_stop
from discussions.engine.council.motions import render_result
from discussions.engine.turn.outcomes import render_pass
from discussions.git.additions import lost_blocks
from discussions.git.merge import CLEAN, CONFLICT, LINE_MERGE, merge_texts
from discussions.git.units import split_blocks
from discussions.syntax.parse import parse_document
from discussions.syntax.render import (
    analyse_tail,
    join_blocks,
    join_for_append,
    neutralise,
    render_comment,
    render_header,
    render_phase_transition,
    render_status_change,
)

PHASES = ["initial_feedback", "detailed_review", "consensus_vote"]
HEADER = render_header(
    [
        ("Title", "Merge me"),
        ("Phase", "initial_feedback"),
        ("Status", "OPEN"),
        ("Template", "feature"),
        ("Participants", "architect, security"),
    ]
)
PREAMBLE = (
    "\n# Merge me\n\n## Context\n\nTwo branches, one file.\n\n---\n\n"
    "*Discussion begins below. Participants will be @mentioned to provide feedback.*\n"
)
TOKEN = re.compile(r"TOKEN-[0-9a-z-]+")
ENGINE = re.compile(r"ENGINE-[0-9a-z-]+")


def append(text: str, *blocks: str) -> str:
    return text + join_blocks(analyse_tail(text, at_file_start=True), list(blocks))


TIMES = [f"2026-11-23T10:0{i}:00Z" for i in range(6)]


def human(
    author: str, token: str, extra: str = "", vote: str | None = None, at: int | None = None
) -> str:
    """A person's comment; with `at`, written at ``TIMES[at]`` as the tool writes one."""
    meta = None if at is None else f"at: {TIMES[at]}"
    return render_comment(author, f"Comment {token}.\n\n{extra}".strip(), vote=vote, meta=meta)


def ai(
    author: str, token: str, extra: str = "", vote: str | None = None, at: int | None = None
) -> str:
    body = neutralise(f"From the model: {token}.\n\n{extra}")
    meta = f"provider: mock | duration: 0.{len(token)}s"
    if at is not None:
        meta += f" | digest: 0123456789abcdef | at: {TIMES[at]}"
    return render_comment(author, body, vote=vote, meta=meta)


def transition(i: int) -> str:
    return render_phase_transition(PHASES[i], PHASES[i + 1])


BASE = append(HEADER + PREAMBLE, human("Rob", "TOKEN-base-1"), ai("AI-Architect", "TOKEN-base-2"))


def final_state(text: str) -> tuple[str, str]:
    """The phase and status the file ends in (its last transition and status change)."""
    doc = parse_document(text)
    state = {"phase-transition": PHASES[0], "status-change": "OPEN"}
    for m in doc.engine_markers:
        if m.kind in state:
            state[m.kind] = m.target
    return state["phase-transition"], state["status-change"]


def keeps_every_parent_block(base: str, merged: str, *parents: str) -> None:
    """The invariant `check` holds every merge to (`additions.lost_blocks`): each block of
    each parent is in the result, unless another parent edited that block of the base."""
    for i, parent in enumerate(parents):
        others = [(p, [base]) for j, p in enumerate(parents) if j != i]
        assert lost_blocks(merged, parent, others) == []


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def engine_block(kind: str, token: str, at: int | None = None) -> str:
    """A block as `run`, the chair or the council writes it, marked with `token`."""
    if kind == "round":
        return render_round(2, "detailed_review", [token, "security"], None)
    if kind == "stop":
        return render_stop("max_rounds", 2).replace("*\n", f" {token}*\n")
    if kind == "escalation":
        return render_escalation("deadlock", f"stuck {token}", [f"- {token}: no position"])
    if kind == "pass":
        return render_pass(token, [] if at is None else [f"at: {TIMES[at]}"])
    if kind == "fallback":
        return render_fallback("detailed_review", "escalate", 2, f"see {token}")
    return render_result(7, "passed", {"YES": 2}).replace("*\n", f" {token}*\n")


def engine_tokens(text: str) -> list[str]:
    """Tokens of engine blocks, once per block (a round names its token twice)."""
    blocks, rest = split_blocks(text)
    return [t for b in [*blocks, rest] for t in dict.fromkeys(ENGINE.findall(b))]


def phase_by_line(text: str, pattern: re.Pattern[str]) -> dict[str, str]:
    """The phase each token of `pattern` is in, by its line and the transitions before it."""
    doc = parse_document(text)
    changes = [(m.line, m.target) for m in doc.engine_markers if m.kind == "phase-transition"]
    out: dict[str, str] = {}
    for m in pattern.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        phase = doc.header.get("phase", "")
        for at, target in changes:
            if at < line:
                phase = target
        out[m.group(0)] = phase
    return out


def phase_by_token(text: str) -> dict[str, str]:
    """The phase each comment (by its token) was written in, read with the project's parser."""
    doc = parse_document(text)
    changes = [(m.line, m.target) for m in doc.engine_markers if m.kind == "phase-transition"]
    out: dict[str, str] = {}
    for c in doc.comments:
        phase = doc.header.get("phase", "")
        for line, target in changes:
            if line < c.line:
                phase = target
        for tok in tokens(c.body):
            out[tok] = phase
    return out


# --------------------------------------------------------------------------- unit cases


def test_split_blocks_keeps_every_byte() -> None:
    blocks, rest = split_blocks(BASE + "tail")
    assert "".join(blocks) + rest == BASE + "tail"
    assert all(b.rstrip("\n").endswith("---") for b in blocks)
    assert rest == "tail"


def test_both_sides_appended_comments() -> None:
    ours = append(BASE, human("Ann", "TOKEN-o1"), ai("AI-Security", "TOKEN-o2"))
    theirs = append(BASE, human("Bob", "TOKEN-t1", vote="READY"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert r.text.startswith(BASE)
    assert sorted(tokens(r.text)) == sorted(set(tokens(ours)) | set(tokens(theirs)))
    assert not parse_document(r.text).warnings
    assert (r.added_ours, r.added_theirs, r.shared) == (2, 1, 0)
    # The two runs are ordered by first author, not by side.
    assert r.text.index("TOKEN-o1") < r.text.index("TOKEN-t1")
    assert merge_texts(BASE, theirs, ours).text == r.text


def test_timed_comments_merge_in_time_order_whichever_side_is_ours() -> None:
    """Comments that say when they were written are merged in that order, not by author."""
    ours = append(BASE, human("Zed", "TOKEN-o1", at=1), ai("AI-Architect", "TOKEN-o2", at=4))
    theirs = append(BASE, human("Ann", "TOKEN-t1", at=2), human("Bob", "TOKEN-t2", at=3))
    outs = set()
    for a, b in ((ours, theirs), (theirs, ours)):
        r = merge_texts(BASE, a, b)
        assert r.status == CLEAN, r.reason
        assert tokens(r.text)[2:] == ["TOKEN-o1", "TOKEN-t1", "TOKEN-t2", "TOKEN-o2"]
        assert not parse_document(r.text).warnings
        outs.add(r.text)
    assert len(outs) == 1
    # Written in the same second: then by author, as without times.
    ours = append(BASE, human("Zed", "TOKEN-o1", at=2))
    theirs = append(BASE, human("Ann", "TOKEN-t1", at=2))
    assert tokens(merge_texts(BASE, ours, theirs).text)[2:] == ["TOKEN-t1", "TOKEN-o1"]


def test_a_comment_without_a_time_follows_the_one_before_it_on_its_side() -> None:
    """A hand-typed comment (no time) stays behind the comment its side had before it; the
    other side's timed comments keep their time order around the pair."""
    ours = append(
        BASE,
        human("Ann", "TOKEN-o1", at=1),
        human("Hand", "TOKEN-o2"),
        human("Zed", "TOKEN-o3", at=4),
    )
    theirs = append(BASE, human("Bob", "TOKEN-t1", at=2), ai("AI-Security", "TOKEN-t2", at=3))
    for a, b in ((ours, theirs), (theirs, ours)):
        r = merge_texts(BASE, a, b)
        assert r.status == CLEAN, r.reason
        assert tokens(r.text)[2:] == ["TOKEN-o1", "TOKEN-o2", "TOKEN-t1", "TOKEN-t2", "TOKEN-o3"]


def test_a_time_in_the_text_of_a_comment_is_not_its_time() -> None:
    """Only the metadata line under ``Name:`` says when; the same words in the text (code, a
    quote, further down) do not move the comment."""
    quoted = "```\n<!-- at: 2026-11-23T10:00:00Z -->\n```"
    ours = append(BASE, human("Ann", "TOKEN-o1", quoted, at=3))
    theirs = append(BASE, human("Bob", "TOKEN-t1", at=2))
    assert tokens(merge_texts(BASE, ours, theirs).text)[2:] == ["TOKEN-t1", "TOKEN-o1"]


def test_merged_file_renders_on_github_like_each_side() -> None:
    """Every separator stays a rule (never a heading), every comment its own paragraph."""
    import cmarkgfm

    ours = append(BASE, human("Ann", "TOKEN-o1"), transition(0))
    theirs = BASE + "\nName: Zed\n\nTyped by hand TOKEN-t1, no closing line.\n"
    r = merge_texts(BASE, ours, theirs)
    page = cmarkgfm.github_flavored_markdown_to_html(r.text)
    assert page.count("<h2>") == page.count("<h2>Context</h2>") == 1
    assert page.count("<hr />") == r.text.count("\n---\n")
    for name in ("Rob", "AI-Architect", "Ann", "Zed"):
        assert f"<p>Name: {name}</p>" in page


def test_same_transition_on_both_sides_written_once() -> None:
    ours = append(BASE, human("Ann", "TOKEN-o1"), transition(0), human("Ann", "TOKEN-o2"))
    theirs = append(BASE, ai("AI-Security", "TOKEN-t1"), transition(0))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert r.text.count("PHASE-TRANSITION") == 1
    phases = phase_by_token(r.text)
    assert phases["TOKEN-o1"] == phases["TOKEN-t1"] == "initial_feedback"
    assert phases["TOKEN-o2"] == "detailed_review"


def test_divergent_phase_moves_conflict() -> None:
    ours = append(BASE, transition(0))
    theirs = append(BASE, render_phase_transition("initial_feedback", "consensus_vote"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CONFLICT
    assert "phase or status" in r.reason
    assert "\n<<<<<<< ours\n" in r.text and "\n=======\n" in r.text
    assert r.text.endswith(">>>>>>> theirs\n")
    assert r.text.startswith(BASE.rsplit("\n", 1)[0])


def test_divergent_status_changes_conflict() -> None:
    ours = append(BASE, render_status_change("OPEN", "CLOSED"))
    theirs = append(BASE, render_status_change("OPEN", "ACCEPTED"))
    assert merge_texts(BASE, ours, theirs).status == CONFLICT


def test_marker_size_is_honoured() -> None:
    ours = append(BASE, transition(0))
    theirs = append(BASE, render_status_change("OPEN", "CLOSED"))
    r = merge_texts(BASE, ours, theirs, marker_size=10)
    assert "\n<<<<<<<<<< ours\n" in r.text and "\n==========\n" in r.text


def test_example_marker_inside_code_is_not_a_transition() -> None:
    example = "```\n<!-- PHASE-TRANSITION: initial_feedback -> consensus_vote -->\n```"
    ours = append(BASE, human("Ann", "TOKEN-o1", example))
    theirs = append(BASE, transition(0))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert phase_by_token(r.text)["TOKEN-o1"] == "initial_feedback"


def test_visible_line_next_to_transition_is_part_of_the_block() -> None:
    marker = transition(0)
    if "*Phase changed" not in marker:  # the engine writes this line itself once it does
        marker += "\n*Phase changed: initial_feedback → detailed_review*\n"
    ours = append(BASE, human("Ann", "TOKEN-o1"), marker)
    theirs = append(BASE, marker, human("Bob", "TOKEN-t1"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert r.text.count("*Phase changed") == 1
    assert phase_by_token(r.text) == {
        "TOKEN-base-1": "initial_feedback",
        "TOKEN-base-2": "initial_feedback",
        "TOKEN-o1": "initial_feedback",
        "TOKEN-t1": "detailed_review",
    }


def test_hand_typed_comment_without_separator_gets_one() -> None:
    ours = BASE + "\nName: Zed\n\nTyped by hand TOKEN-o1, no closing line.\n"
    theirs = append(BASE, ai("AI-Architect", "TOKEN-t1"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    doc = parse_document(r.text)
    assert not doc.warnings
    authors = [c.author for c in doc.comments]
    assert authors.count("Zed") == 1 and authors.count("AI-Architect") == 2
    for c in doc.comments:
        assert len(tokens(c.body)) == 1  # no comment swallowed another


def test_fresh_file_from_template_both_append() -> None:
    base = HEADER + PREAMBLE  # ends in an unterminated line, as templates do
    ours = append(base, human("Ann", "TOKEN-o1"))
    theirs = append(base, human("Bob", "TOKEN-t1"))
    r = merge_texts(base, ours, theirs)
    assert r.status == CLEAN
    assert r.text.count("*Discussion begins below") == 1
    assert not parse_document(r.text).warnings
    assert len(parse_document(r.text).comments) == 2


def test_edit_of_existing_text_needs_a_line_merge() -> None:
    ours = append(BASE.replace("Two branches", "Three branches"), human("Ann", "TOKEN-o1"))
    theirs = append(BASE, human("Bob", "TOKEN-t1"))
    assert merge_texts(BASE, ours, theirs).status == LINE_MERGE


def test_both_created_differently_conflicts() -> None:
    r = merge_texts("", append(BASE, human("Ann", "TOKEN-1")), BASE)
    assert r.status == CONFLICT
    assert "created" in r.reason


def test_unfinished_comment_gets_its_code_block_closed_too() -> None:
    ours = BASE + "\nName: Ann\n\nUnfinished TOKEN-o1\n\n```python\nprint(1)\n"
    theirs = append(BASE, human("Bob", "TOKEN-t1"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert "```python\nprint(1)\n```\n\n---\n\nName: Bob\n" in r.text
    assert not parse_document(r.text).warnings


def test_new_parse_warning_is_a_conflict() -> None:
    # Ours left a code block open (its `---` is inside it): alone, the block runs to the end
    # of the file; merged, it would run into their comment. Never a silent guess.
    ours = BASE + "\nName: Ann\n\nUnfinished TOKEN-o1\n\n```\nprint(1)\n\n---\n"
    theirs = append(BASE, human("Bob", "TOKEN-t1"))
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CONFLICT
    assert "neither side had" in r.reason


def test_insertions_in_the_middle_from_a_replayed_rebase() -> None:
    # Replaying commit 2 of a branch onto an upstream that was merged with commit 1:
    # base = B + C1, ours = B + U1 + C1 (the earlier merge put U1 first), theirs = B + C1 + C2.
    c1 = append(BASE, human("Zed", "TOKEN-c1"))
    ours = append(BASE, human("Ann", "TOKEN-u1"), human("Zed", "TOKEN-c1"))
    theirs = append(c1, human("Zed", "TOKEN-c2"))
    r = merge_texts(c1, ours, theirs)
    assert r.status == CLEAN
    assert tokens(r.text) == ["TOKEN-base-1", "TOKEN-base-2", "TOKEN-u1", "TOKEN-c1", "TOKEN-c2"]


def test_identical_comment_on_both_sides_written_once() -> None:
    same = human("Rob", "TOKEN-same", vote="READY")
    ours = append(BASE, same, human("Ann", "TOKEN-o1"))
    theirs = append(BASE, same)
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CLEAN
    assert tokens(r.text).count("TOKEN-same") == 1


def test_engine_blocks_after_a_shared_transition_are_kept() -> None:
    """One side advanced; the other ran rounds: its transition is the same, and the ROUND,
    comment and RUN-STOP blocks after it must all survive the merge."""
    ours = append(BASE, transition(0))
    theirs = append(
        BASE,
        engine_block("round", "ENGINE-r1"),
        ai("AI-Architect", "TOKEN-t1"),
        transition(0),
        engine_block("round", "ENGINE-r2"),
        ai("AI-Security", "TOKEN-t2"),
        engine_block("stop", "ENGINE-stop"),
    )
    for a, b in ((ours, theirs), (theirs, ours)):
        r = merge_texts(BASE, a, b)
        assert r.status == CLEAN, r.reason
        assert engine_tokens(r.text) == ["ENGINE-r1", "ENGINE-r2", "ENGINE-stop"]
        assert r.text == theirs  # ours added nothing theirs did not


def test_shared_transition_with_different_words_conflicts() -> None:
    """Both sides wrote the same transition, one with a line of its own under it: keeping
    one block would lose the other's words."""
    ours = append(BASE, transition(0))
    theirs = append(BASE, transition(0) + "\nMoved on after the call TOKEN-x.\n")
    r = merge_texts(BASE, ours, theirs)
    assert r.status == CONFLICT
    assert "TOKEN-x" in r.text


# --------------------------------------------------------------------------- properties

EXTRAS = [
    "",
    "Q: Should we cache this?",
    "TODO: write the migration",
    "CONCERN: latency under load",
    "@architect what do you think?",
    "A rule inside a comment:\n\n---\n\nand more after it.",
    "```python\ndef f():\n    return 1\n---\n```",
    "```\n<!-- PHASE-TRANSITION: initial_feedback -> consensus_vote -->\n```",
    "> quoted\n> text",
    "- one\n- two",
]
AUTHORS = ["Rob", "Ann", "AI-Architect", "AI-Security", "Zed"]
VOTES = [None, "READY", "CHANGES"]


@dataclass
class Step:
    kind: str  # "comment", "ai", "engine", "advance", "close"
    author: str = ""
    extra: str = ""
    vote: str | None = None
    at: int | None = None
    """Index into TIMES: when the comment or pass says it was written (None: it does not)."""


step = st.one_of(
    st.builds(
        Step,
        st.sampled_from(["comment", "ai"]),
        st.sampled_from(AUTHORS),
        st.sampled_from(EXTRAS),
        st.sampled_from(VOTES),
        st.none() | st.integers(0, len(TIMES) - 1),
    ),
    st.builds(
        Step,
        st.just("engine"),
        st.sampled_from(["round", "stop", "escalation", "pass", "fallback", "result"]),
        at=st.none() | st.integers(0, len(TIMES) - 1),
    ),
    st.just(Step("advance")),
    st.just(Step("close")),
)


def play(base: str, steps: list[Step], side: str, hand_typed_tail: bool) -> str:
    """Apply `steps` to `base` as the engine would; phase and status moves follow one shared
    plan (the template's phase order, then OPEN -> CLOSED), so the sides agree."""
    text = base
    doc = parse_document(base)
    moves = [m.target for m in doc.engine_markers if m.kind == "phase-transition"]
    phase = PHASES.index(moves[-1]) if moves else 0
    closed = any(m.kind == "status-change" for m in doc.engine_markers)
    for i, s in enumerate(steps):
        token = f"TOKEN-{side}-{i}"
        if s.kind == "comment":
            text = append(text, human(s.author, token, s.extra, s.vote, s.at))
        elif s.kind == "ai":
            text = append(text, ai(s.author, token, s.extra, s.vote, s.at))
        elif s.kind == "engine":
            text = append(text, engine_block(s.author, token.replace("TOKEN", "ENGINE"), s.at))
        elif s.kind == "advance" and phase + 1 < len(PHASES) and not closed:
            text = append(text, transition(phase))
            phase += 1
        elif s.kind == "close" and not closed and phase + 1 == len(PHASES):
            text = append(text, render_status_change("OPEN", "CLOSED"))
            closed = True
    if hand_typed_tail:  # typed in an editor: a separator before it, none after it
        block = f"Name: Hand\n\nTyped in an editor TOKEN-{side}-hand.\n"
        joined = join_for_append(analyse_tail(text, at_file_start=True), block)
        text += joined.removesuffix("\n---\n")
    return text


scenario = st.tuples(
    st.lists(step, max_size=4),
    st.lists(step, max_size=8),
    st.lists(step, max_size=8),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_two_branch_appends_merge_cleanly(case: tuple[object, ...]) -> None:
    pre, ours_steps, theirs_steps, fresh, hand_o, hand_t = case
    assert isinstance(pre, list) and isinstance(ours_steps, list) and isinstance(theirs_steps, list)
    base = play(HEADER + PREAMBLE if fresh else BASE, pre, "pre", False)
    ours = play(base, ours_steps, "o", bool(hand_o))
    theirs = play(base, theirs_steps, "t", bool(hand_t))

    r = merge_texts(base, ours, theirs)
    assert r.status == CLEAN, r.reason
    keeps_every_parent_block(base, r.text, ours, theirs)
    # Every comment and every engine block exactly once.
    expected = set(tokens(ours)) | set(tokens(theirs))
    assert sorted(tokens(r.text)) == sorted(expected)
    engine = set(engine_tokens(ours)) | set(engine_tokens(theirs))
    assert sorted(engine_tokens(r.text)) == sorted(engine)
    assert phase_by_line(r.text, ENGINE) == {
        **phase_by_line(ours, ENGINE),
        **phase_by_line(theirs, ENGINE),
    }
    # Each comment in the phase its author saw.
    seen = {**phase_by_token(ours), **phase_by_token(theirs)}
    assert phase_by_token(r.text) == seen
    # Shared markers written once, no parse warning, no comment swallowing another.
    doc = parse_document(r.text)
    assert not doc.warnings
    moves = [m for m in doc.engine_markers if m.kind != "vote-reset"]
    sources = [m.source for m in moves if m.kind == "phase-transition"]
    assert len(sources) == len(set(sources))
    for c in doc.comments:
        assert len(tokens(c.body)) <= 1
    # Deterministic and symmetric (criss-cross merges agree byte for byte).
    assert merge_texts(base, ours, theirs).text == r.text
    assert merge_texts(base, theirs, ours).text == r.text
    # Merging the result again with a side it already holds changes nothing.
    assert merge_texts(base, r.text, ours).text == r.text
    assert merge_texts(base, theirs, r.text).text == r.text
    # CRLF files merge like LF files.
    crlf = merge_texts(*(t.replace("\n", "\r\n") for t in (base, ours, theirs)))
    assert crlf.status == CLEAN
    assert crlf.text == r.text.replace("\n", "\r\n")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(step, min_size=1, max_size=6), st.lists(step, min_size=1, max_size=6))
def test_rebase_replay_one_commit_at_a_time(
    ours_steps: list[Step], theirs_steps: list[Step]
) -> None:
    """A rebase replays theirs commit by commit onto ours; every replay must merge cleanly
    and the end result holds every comment once."""
    upstream = play(BASE, ours_steps, "o", False)
    head = upstream
    previous = BASE
    for k in range(1, len(theirs_steps) + 1):
        commit = play(BASE, theirs_steps[:k], "t", False)
        r = merge_texts(previous, head, commit)
        assert r.status == CLEAN, r.reason
        keeps_every_parent_block(previous, r.text, head, commit)
        head, previous = r.text, commit
    expected = set(tokens(upstream)) | set(tokens(previous))
    assert sorted(tokens(head)) == sorted(expected)
    engine = set(engine_tokens(upstream)) | set(engine_tokens(previous))
    assert sorted(engine_tokens(head)) == sorted(engine)
    assert not parse_document(head).warnings


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_divergent_moves_conflict_whatever_the_newline(newline: str) -> None:
    ours = append(BASE, human("Ann", "TOKEN-o1"), transition(0))
    theirs = append(BASE, render_status_change("OPEN", "CLOSED"))
    r = merge_texts(*(t.replace("\n", newline) for t in (BASE, ours, theirs)))
    assert r.status == CONFLICT
    assert f"{newline}<<<<<<< ours{newline}" in r.text


free_step = st.one_of(
    step,
    st.builds(Step, st.just("to"), st.sampled_from(PHASES[1:])),
)


def play_free(base: str, steps: list[Step], side: str) -> str:
    """Like `play`, but phase moves need not follow a shared plan: sides may diverge."""
    text = base
    phase = parse_document(base).header.get("phase", PHASES[0])
    for i, s in enumerate(steps):
        if s.kind == "to":
            if s.author != phase:
                text = append(text, render_phase_transition(phase, s.author))
                phase = s.author
        else:
            text = play(text, [s], f"{side}{i}x", False)
    return text


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(free_step, max_size=8), st.lists(free_step, max_size=8))
@example(  # theirs' last move starts from a phase it was not in: settling must still end in ours'
    ours_steps=[
        Step("comment", "Rob"),
        Step("to", "detailed_review"),
        Step("advance"),
        Step("comment", "Rob"),
        Step("close"),
    ],
    theirs_steps=[Step("advance"), Step("advance"), Step("to", "detailed_review")],
)
def test_no_block_of_either_side_is_dropped(
    ours_steps: list[Step], theirs_steps: list[Step]
) -> None:
    """Whatever the sides wrote (engine blocks of every kind, diverging phase moves), a clean
    merge holds every block of either side; anything else is a conflict."""
    ours = play_free(BASE, ours_steps, "o")
    theirs = play_free(BASE, theirs_steps, "t")
    r = merge_texts(BASE, ours, theirs)
    assert r.status in (CLEAN, CONFLICT), r.reason
    if r.status == CONFLICT:
        for prefer in ("ours", "theirs"):  # `resolve --ours-phase` / `--theirs-phase`
            settled = merge_texts(BASE, ours, theirs, prefer=prefer)
            if settled.status == CLEAN:
                keeps_every_parent_block(BASE, settled.text, ours, theirs)
                assert not parse_document(settled.text).warnings
                wanted = (ours, theirs)[prefer == "theirs"]
                assert final_state(settled.text) == final_state(wanted)
        return
    keeps_every_parent_block(BASE, r.text, ours, theirs)
    merged = set(split_blocks(r.text)[0])
    for side in (ours, theirs):
        for block in split_blocks(side)[0]:
            assert block in merged, block
    expected = set(engine_tokens(ours)) | set(engine_tokens(theirs))
    assert sorted(engine_tokens(r.text)) == sorted(expected)


three_branches = st.tuples(
    st.lists(step, max_size=3),
    st.lists(st.lists(step, max_size=5), min_size=3, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three_branches)
def test_branches_merged_in_any_order_give_the_same_bytes(case: tuple[object, ...]) -> None:
    """Three or four branches from one base, merged one after another into the first in every
    order: the same bytes each time, every comment and engine block once, in its phase."""
    import itertools

    pre, plans, hands = case
    assert isinstance(pre, list) and isinstance(plans, list) and isinstance(hands, list)
    base = play(BASE, pre, "pre", False)
    sides = [play(base, plan, f"s{n}", bool(hands[n])) for n, plan in enumerate(plans)]
    results = set()
    for order in itertools.permutations(sides):
        text = order[0]
        for other in order[1:]:
            r = merge_texts(base, text, other)
            assert r.status == CLEAN, r.reason
            keeps_every_parent_block(base, r.text, text, other)
            text = r.text
        results.add(text)
    assert len(results) == 1
    (text,) = results
    assert sorted(tokens(text)) == sorted({t for s in sides for t in tokens(s)})
    assert sorted(engine_tokens(text)) == sorted({t for s in sides for t in engine_tokens(s)})
    seen: dict[str, str] = {}
    for s in sides:
        seen.update(phase_by_token(s))
    assert phase_by_token(text) == seen
    assert not parse_document(text).warnings


TYPO_BASE = append(BASE, human("Rob", "TOKEN-base-3", "We shoud cache it.", vote="READY"))


def fix_typo(text: str) -> str:
    """The base's last comment, corrected by hand in an editor."""
    return text.replace("We shoud cache it.", "We should cache it.")


def test_typo_fixed_in_the_last_comment_then_both_comment() -> None:
    """One side fixes a typo in the base's last comment and comments; the other comments:
    the edit and the appends do not overlap, so the merge is clean, whichever side is ours."""
    from discussions.git.driver import merge_versions

    ours = append(fix_typo(TYPO_BASE), human("Ann", "TOKEN-o1"))
    theirs = append(TYPO_BASE, human("Bob", "TOKEN-t1", vote="CHANGES"))
    outs = set()
    for a, b in ((ours, theirs), (theirs, ours)):
        r, out = merge_versions(TYPO_BASE.encode(), a.encode(), b.encode())
        assert r.status == CLEAN, r.reason
        outs.add(out)
    (out,) = outs
    text = out.decode()
    assert "We should cache it." in text and "shoud" not in text
    assert tokens(text) == tokens(TYPO_BASE) + ["TOKEN-o1", "TOKEN-t1"]
    assert not parse_document(text).warnings


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(step, max_size=4), min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_three_branches_with_hand_edits_of_the_last_comment(
    plans: list[list[Step]], typos: list[bool], hands: list[bool]
) -> None:
    """Three branches, some fixing the same typo in the base's last comment by hand, some
    ending with a hand-typed comment: merged through the driver (line merge of the edit,
    block merge of the appends) in every order, the same bytes, every comment once."""
    import itertools

    from discussions.git.driver import merge_versions

    sides = []
    for n, plan in enumerate(plans):
        start = fix_typo(TYPO_BASE) if typos[n] else TYPO_BASE
        sides.append(play(start, plan, f"s{n}", hands[n]))
    results = set()
    for order in itertools.permutations(sides):
        out = order[0].encode()
        for other in order[1:]:
            r, merged = merge_versions(TYPO_BASE.encode(), out, other.encode())
            assert r.status == CLEAN, r.reason
            keeps_every_parent_block(TYPO_BASE, merged.decode(), out.decode(), other)
            out = merged
        results.add(out)
    assert len(results) == 1
    text = results.pop().decode()
    assert sorted(tokens(text)) == sorted({t for s in sides for t in tokens(s)})
    assert sorted(engine_tokens(text)) == sorted({t for s in sides for t in engine_tokens(s)})
    assert ("We should cache it." in text) == any(typos)
    assert not parse_document(text).warnings


def test_typo_fix_over_an_unfinished_comment_a_merge_moved() -> None:
    """The base ends with a hand-typed comment left open. Ours fixed a typo above it and holds
    it closed, after a comment a merge placed first; theirs closed it and added a turn."""
    from discussions.git.driver import merge_versions

    hand = "Name: Hand\n\nTyped TOKEN-hand.\n"
    base = TYPO_BASE + "\n" + hand
    ours = append(fix_typo(TYPO_BASE), human("Ann", "TOKEN-o1"), hand)
    theirs = append(base, ai("AI-Architect", "TOKEN-t1"))
    outs = set()
    for a, b in ((ours, theirs), (theirs, ours)):
        r, out = merge_versions(base.encode(), a.encode(), b.encode())
        assert r.status == CLEAN, r.reason
        outs.add(out)
    (out,) = outs
    text = out.decode()
    assert "We should cache it." in text
    assert sorted(tokens(text)) == sorted({*tokens(ours), *tokens(theirs)})
    assert not parse_document(text).warnings
