"""`discussions trial`'s figures and rules, each on its own: the Wilson interval against values
worked out by hand, the majority and its tie rule, the match rules, the answer rule and the
task file's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.errors import BadInput, ConfigError
from discussions.ops.trial.answers import extract
from discussions.ops.trial.arms import parse_arm
from discussions.ops.trial.stats import majority, wilson
from discussions.ops.trial.tasks import Task, load_tasks, number_in

from ..conftest import write


def test_wilson_interval_is_the_one_worked_out_by_hand() -> None:
    # 12 of 20, z = 1.959964, z^2 = 3.841459:
    #   centre = (0.6 + 3.841459/40) / (1 + 3.841459/20) = 0.696036 / 1.192073 = 0.583890
    #   half = 1.959964 * sqrt(0.6*0.4/20 + 3.841459/1600) / 1.192073
    #        = 1.959964 * sqrt(0.012 + 0.002401) / 1.192073 = 0.197306
    low, high = wilson(12, 20)
    assert low == pytest.approx(0.386584, abs=1e-5)
    assert high == pytest.approx(0.781196, abs=1e-5)
    # 0 of 10: centre = half = (3.841459/20) / (1 + 3.841459/10) = 0.192073 / 1.384146
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-5)
    # 10 of 10 mirrors it
    assert wilson(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-5)
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_majority_counts_answers_by_the_tasks_key_and_ties_go_to_the_first_call() -> None:
    numbers = Task("t", "q", answer="42", match="number")
    assert majority(["42", "41", "42.0"], numbers.vote_key) == "42"
    assert majority(["41", "42", None, "42"], numbers.vote_key) == "42"
    assert majority(["41", "42"], numbers.vote_key) == "41"  # a tie: the earlier call
    assert majority(["42", "41"], numbers.vote_key) == "42"
    assert majority([None, None], numbers.vote_key) is None
    words = Task("t", "q", answer="Even", match="case-insensitive")
    assert majority(["odd", "EVEN", "even "], words.vote_key) == "EVEN"


@pytest.mark.parametrize(
    ("task", "given", "expected"),
    [
        (Task("t", "q", answer="MCMXCIV"), "MCMXCIV", True),
        (Task("t", "q", answer="MCMXCIV"), "mcmxciv", False),
        (Task("t", "q", answer="Even", match="case-insensitive"), " even ", True),
        (Task("t", "q", answer=r"2 ?x ?5", match="regex"), "2 x 5", True),
        (Task("t", "q", answer=r"2 ?x ?5", match="regex"), "2 x 5 x 7", False),
        (Task("t", "q", answer="10263", match="number"), "10,263", True),
        (Task("t", "q", answer="10263", match="number"), "10263 apples", True),
        (Task("t", "q", answer="42", match="number"), "17 + 25 = 42", False),
        (Task("t", "q", answer="3.14", match="number", tolerance=0.01), "3.1416", True),
        (Task("t", "q", answer="3.14", match="number", tolerance=0.001), "3.1416", False),
        (Task("t", "q", answer="200", match="number", tolerance=0.01, relative=True), "202", True),
        (Task("t", "q", answer="200", match="number", tolerance=0.01, relative=True), "203", False),
        (Task("t", "q", answer="42"), None, False),
    ],
)
def test_match_rules(task: Task, given: str | None, expected: bool) -> None:
    assert task.matches(given) is expected


def test_a_number_is_read_only_where_the_answer_gives_one() -> None:
    assert number_in("-1,234.5") == -1234.5
    assert number_in("1e3") == 1000
    assert number_in("no number") is None
    assert number_in("between 3 and 4") is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Adding them.\nANSWER: 42", "42"),
        ("ANSWER: 41\nOn reflection:\n**Answer:** **42**.", "42"),
        ("- answer: `MCMXCIV`", "MCMXCIV"),
        ('{"answer": 42}', "42"),
        ('{"comment": "I think\\nANSWER: 7", "vote": null}', "7"),
        ("42", "42"),
        ("Two lines\nwithout the line asked for", None),
        ('{"comment": "The mock speaks.\\nMock vote: READY", "vote": "READY"}', None),
        ("", None),
    ],
)
def test_the_answer_rule(reply: str, expected: str | None) -> None:
    assert extract(reply) == expected


def test_a_task_file_in_yaml_takes_defaults_and_says_where_a_task_is_wrong(tmp_path: Path) -> None:
    good = write(
        tmp_path / "t.yaml",
        """
        match: number
        tolerance: 1%
        tasks:
          - question: What is 2 + 2?
            answer: 4
          - id: word
            question: Odd or even?
            answer: even
            match: case-insensitive
          - id: essay
            question: Explain carries.
            rubric: Mentions the tens column.
        """,
    )
    tasks = load_tasks(good)
    assert [t.id for t in tasks] == ["task-1", "word", "essay"]
    assert (tasks[0].match, tasks[0].tolerance, tasks[0].relative) == ("number", 0.01, True)
    assert tasks[1].match == "case-insensitive" and tasks[2].judged
    bad = write(
        tmp_path / "bad.yaml",
        """
        tasks:
          - question: fine
            answer: 1
          - question: no answer
        """,
    )
    with pytest.raises(ConfigError, match=r"bad\.yaml: line 4: a task needs an 'answer'"):
        load_tasks(bad)


def test_a_task_file_in_json_lines_names_the_bad_line(tmp_path: Path) -> None:
    good = write(tmp_path / "t.jsonl", '{"question": "What is 1 + 1?", "answer": 2}\n\n')
    assert load_tasks(good)[0].match == "number"
    bad = write(tmp_path / "b.jsonl", '{"question": "q", "answer": 1}\n{"question": \n')
    with pytest.raises(ConfigError, match=r"b\.jsonl: line 2: not JSON"):
        load_tasks(bad)
    regex = write(tmp_path / "r.jsonl", '{"question": "q", "answer": "(", "match": "regex"}\n')
    with pytest.raises(ConfigError, match="not a regular expression"):
        load_tasks(regex)


def test_arms_as_written() -> None:
    assert parse_arm("single").providers == ()
    assert parse_arm("council:claude, codex,gemini").providers == ("claude", "codex", "gemini")
    assert parse_arm("Self-Consistency:llm").kind == "self-consistency"
    for wrong in ("solo", "vote", "single:a,b", "council:"):
        with pytest.raises(BadInput):
            parse_arm(wrong)
