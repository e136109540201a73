"""`discussions retrial` (issue 38, item 2): a past decision's first ballot asked again of
another provider, the prompts rebuilt from the file as it stood, the flips recorded in a
``RETRIAL`` block that `status`, `check`, `decisions` and the merge driver all know."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from discussions.git.units import split_blocks

from ..conftest import script_command, write
from ..support.git import check_clean, commit_all, git
from ..support.hosted_stub import HostedStub, serve_hosted
from ..support.openai_stub import StubServer, serve
from .support import (
    HEAD,
    OTHER_PLAN,
    VOTE_FIRST,
    ai,
    cli,
    cli_json,
    decided_discussion,
    person,
)

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

ALIASES = ("architect", "security", "pragmatist")


@pytest.fixture
def decided(repo: Path, providers_file, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    others = {
        "other": script_command("ballot.py", str(tmp_path / "prompts" / "other"), OTHER_PLAN),
        "broken": script_command("fail.py", "3", "quota exhausted\n"),
    }
    return decided_discussion(repo, providers_file, tmp_path / "prompts", others)


@pytest.mark.slow
def test_a_retrial_asks_the_sealed_first_ballot_again_and_records_the_flips(
    decided: Path, tmp_path: Path
) -> None:
    before = decided.read_text(encoding="utf-8")
    proc = cli("retrial", "cache.md", "--provider", "other")
    assert "2 of 3 first-ballot votes would flip" in proc.stdout
    prompts = tmp_path / "prompts"
    for alias in ALIASES:  # the very question each voter was asked, byte for byte
        first = (prompts / "first" / f"{alias}-1.prompt").read_text(encoding="utf-8")
        again = (prompts / "other" / f"{alias}-1.prompt").read_text(encoding="utf-8")
        assert again == first
        assert "This round is blind" in again and "secret-" not in again
    after = decided.read_text(encoding="utf-8")
    assert after.startswith(before)  # appended, nothing changed
    data = cli_json("status", "cache.md")
    (retrial,) = data["retrials"]
    assert retrial["provider"] == "other" and retrial["phase"] == "ballot"
    assert retrial["flips"] == 2 and retrial["failed"] == 0
    votes = {v["voter"]: (v["was"], v["now"], v["flipped"]) for v in retrial["votes"]}
    assert votes == {
        "AI-Architect": ("READY", "CHANGES", True),
        "AI-Security": ("CHANGES", "CHANGES", False),
        "AI-Pragmatist": ("CHANGES", "READY", True),
    }
    assert {v["why"] for v in retrial["votes"]} == {f"My ballot: secret-{a}-1." for a in ALIASES}
    text = cli("status", "cache.md").stdout
    assert "2 of 3 first-ballot votes would flip (" in text
    assert "  AI-Architect: READY -> CHANGES (My ballot: secret-architect-1.)\n" in text
    cli("check", "cache.md")


@pytest.mark.slow
def test_failed_calls_are_recorded_as_failed_never_as_votes(decided: Path) -> None:
    as_json = cli("retrial", "cache.md", "--provider", "broken", "--json", check=False)
    assert as_json.returncode == 1  # no call got an answer, as `turn` says of a turn
    done = json.loads(as_json.stdout)
    assert done["failed"] == 3 and done["flips"] == 0
    assert {v["now"] for v in done["votes"]} == {"failed"}
    assert all("quota exhausted" in v["why"] for v in done["votes"])
    (retrial,) = cli_json("status", "cache.md")["retrials"]
    assert retrial["failed"] == 3 and retrial["flips"] == 0
    proc = cli("retrial", "cache.md", "--provider", "broken", check=False)
    assert "Re-trial on broken, line" in cli("status", "cache.md").stdout
    assert "no answer; 3 calls failed" in cli("status", "cache.md").stdout
    # the same sentence in the file and from the command (one said "0 of 3 ... would flip")
    assert "**Re-trial on broken: no answer; 3 calls failed.**" in decided.read_text()
    assert "no answer; 3 calls failed" in proc.stderr + proc.stdout


@pytest.mark.slow
def test_decisions_lists_the_decisions_a_retrial_would_flip(decided: Path) -> None:
    assert cli_json("decisions", "--flipped") == []
    cli("retrial", "cache.md", "--provider", "broken", check=False)
    assert cli_json("decisions", "--flipped") == []  # failures flip nothing
    cli("retrial", "cache.md", "--provider", "other")
    (entry,) = cli_json("decisions", "--flipped")
    assert entry["text"] == "cache prices for an hour"
    assert [r["flips"] for r in entry["retrials"]] == [0, 2]
    text = cli("decisions").stdout
    assert "Re-trial on other, line" in text and "2 of 3 first-ballot votes would flip" in text


@pytest.mark.slow
def test_decisions_flipped_lists_a_discussion_decided_without_a_decision_line(
    repo: Path,
    providers_file,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    """A discussion decided by the consensus alone has no `DECISION:` line; a re-trial that
    would flip it is listed by `decisions --flipped` all the same, the discussion standing for
    its decision (and `decisions` without it still lists written decisions only)."""
    other = script_command("ballot.py", str(tmp_path / "prompts" / "other"), OTHER_PLAN)
    path = decided_discussion(
        repo, providers_file, tmp_path / "prompts", {"other": other}, decision=False
    )
    assert cli_json("status", "cache.md")["status"] != "OPEN"
    cli("retrial", "cache.md", "--provider", "other")
    (entry,) = cli_json("decisions", "--flipped")
    assert entry["file"].endswith("cache.md") and entry["author"] == "consensus"
    assert entry["text"] == "decided by consensus, no DECISION: line"
    assert [r["flips"] for r in entry["retrials"]] == [2]
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[entry["line"] - 1].startswith("<!-- STATUS-CHANGE: ")  # where it was settled
    assert "2 of 3 first-ballot votes would flip" in cli("decisions", "--flipped").stdout
    assert cli_json("decisions") == []
    assert cli_json("decisions", "--flipped", "--status", "open") == []


def test_a_model_is_refused_for_a_provider_whose_command_sets_it(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file({"other": script_command("ballot.py", str(isolated / "p"), OTHER_PLAN)})
    cli("new", "Cache")
    proc = cli("retrial", "cache.md", "--provider", "other", "--model", "big", check=False)
    assert proc.returncode == 2 and "--model" in proc.stderr
    assert "RETRIAL" not in (isolated / "discussions" / "cache.md").read_text()


def test_nothing_to_retry_without_a_ballot(isolated: Path) -> None:
    cli("new", "Cache")
    proc = cli("retrial", "cache.md", "--provider", "mock", check=False)
    assert proc.returncode == 1 and "no first ballot to ask again" in proc.stderr


def test_a_malformed_retrial_block_is_reported_with_its_line(isolated: Path) -> None:
    cli("new", "Cache")
    path = isolated / "discussions" / "cache.md"
    lines = path.read_text().count("\n")
    with path.open("a", encoding="utf-8") as f:
        f.write("\n<!-- RETRIAL: other | phase: ballot | AI-Architect: READY -> maybe -->\n")
    proc = cli("check", "cache.md", check=False)
    assert proc.returncode == 1
    assert (
        f"cache.md:{lines + 2}: malformed RETRIAL block: AI-Architect's `READY -> maybe` is "
        "not VOTE -> VOTE, none or failed"
    ) in proc.stdout


@pytest.mark.slow
def test_retrials_on_two_branches_are_both_kept_by_the_merge_driver(
    decided: Path, repo: Path
) -> None:
    git(repo, "checkout", "-q", "-b", "a")
    cli("retrial", "cache.md", "--provider", "other")
    commit_all(repo, "a")
    a_text = decided.read_text(encoding="utf-8")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    cli("retrial", "cache.md", "--provider", "broken", check=False)
    commit_all(repo, "b")
    b_text = decided.read_text(encoding="utf-8")
    git(repo, "merge", "-q", "a", "-m", "merge a")
    merged = decided.read_text(encoding="utf-8")
    assert "<<<<<<<" not in merged
    assert set(split_blocks(a_text)[0]) | set(split_blocks(b_text)[0]) == set(
        split_blocks(merged)[0]
    )
    check_clean(decided)
    providers = sorted(r["provider"] for r in cli_json("status", "cache.md")["retrials"])
    assert providers == ["broken", "other"]


@pytest.mark.slow
def test_a_model_is_asked_of_an_openai_compatible_server(decided: Path, userdir: Path) -> None:
    answer = json.dumps({"comment": "The key ignores the tenant. More below.", "vote": "REJECT"})
    with serve(StubServer(mode="json", answer=answer)) as stub:
        with (userdir / "providers.yaml").open("a", encoding="utf-8") as f:
            f.write(
                "  - name: local\n    type: openai-compatible\n"
                f"    base_url: http://127.0.0.1:{stub.port}/v1\n    model: small\n"
            )
        done = json.loads(cli("retrial", "cache.md", "-p", "local", "-m", "big", "--json").stdout)
    chats = [r for r in stub.requests if r["path"].endswith("/chat/completions")]
    assert len(chats) == 3 and {r["body"]["model"] for r in chats} == {"big"}
    assert done["provider"] == "local" and done["model"] == "big" and done["flips"] == 3
    assert {v["why"] for v in done["votes"]} == {"The key ignores the tenant."}
    (retrial,) = cli_json("status", "cache.md")["retrials"]
    assert retrial["provider"] == "local" and retrial["model"] == "big"
    assert "big" not in (userdir / "providers.yaml").read_text()  # for this command only


@pytest.mark.slow
@pytest.mark.parametrize("api", ["anthropic", "gemini"])
def test_a_model_is_asked_of_a_hosted_api(
    decided: Path, userdir: Path, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hosted kinds name the model in each request too (`providers.hosted_apis`)."""
    monkeypatch.setenv("STUB_KEY", "k")
    pieces = ("The key ignores the tenant. ", "More below.\n", "VOTE: REJECT")
    with serve_hosted(HostedStub(api=api, pieces=pieces)) as stub:
        with (userdir / "providers.yaml").open("a", encoding="utf-8") as f:
            f.write(
                f"  - name: hosted\n    type: {api}\n    base_url: {stub.base_url}\n"
                "    model: small\n    api_key_env: STUB_KEY\n"
            )
        done = cli_json("retrial", "cache.md", "-p", "hosted", "-m", "big")
    asked = [r["body"].get("model") or r["path"].split("/models/")[1].split(":")[0]
             for r in stub.requests]  # fmt: skip
    assert asked == ["big"] * 3 and done["model"] == "big" and done["flips"] == 3


@pytest.mark.slow
def test_the_deciding_phase_is_the_last_one_with_votes(
    repo: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    moving_on = VOTE_FIRST + "    transitions: [{to: done, when: consensus}]\n  - id: done\n"
    other = script_command("ballot.py", str(tmp_path / "prompts" / "other"), OTHER_PLAN)
    decided_discussion(repo, providers_file, tmp_path / "prompts", {"other": other}, moving_on)
    assert cli_json("status", "cache.md")["phase"] == "done"
    done = json.loads(cli("retrial", "cache.md", "--provider", "other", "--json").stdout)
    assert done["flips"] == 2
    (retrial,) = cli_json("status", "cache.md")["retrials"]
    assert retrial["phase"] == "ballot"
    for alias in ALIASES:
        first = (tmp_path / "prompts" / "first" / f"{alias}-1.prompt").read_text()
        assert (tmp_path / "prompts" / "other" / f"{alias}-1.prompt").read_text() == first


def test_the_mock_can_retry_a_decision_written_by_hand(isolated: Path) -> None:
    write(isolated / "templates" / "verdict.yaml", VOTE_FIRST)
    path = isolated / "discussions" / "hand.md"
    write(
        path,
        HEAD.format(title="Hand")
        + ai("AI-Architect", "READY", "codex", 8)
        + ai("AI-Security", "REJECT", "codex")
        + person("Rob", "Agreed.\n\nVOTE: READY"),
    )
    done = json.loads(cli("retrial", "hand.md", "--provider", "mock", "--json").stdout)
    assert done["people_not_asked"] == ["Rob"]
    votes = {v["voter"]: v for v in done["votes"]}
    assert sorted(votes) == ["AI-Architect", "AI-Security"]
    for was, v in (("READY", votes["AI-Architect"]), ("REJECT", votes["AI-Security"])):
        assert v["was"] == was and v["now"] in ("READY", "CHANGES", "REJECT")
        assert v["flipped"] == (v["now"] != was) and v["why"]
    (retrial,) = cli_json("status", "hand.md")["retrials"]
    assert retrial["provider"] == "mock" and retrial["votes"] == done["votes"]
    cli("check", "hand.md")


def test_a_ballot_of_people_only_says_theirs_are_not_asked_again(isolated: Path) -> None:
    cli("new", "Cache")
    cli("comment", "cache.md", "--as", "Ann", "--vote", "READY", "Fine.")
    proc = cli("retrial", "cache.md", "--provider", "mock", check=False)
    assert proc.returncode == 1 and "Ann" in proc.stderr, proc.stderr
