"""A discussion held in another language (`settings.language`): participants are asked to
answer in it, the markers stay in their fixed form, `status` reads it all, and a marker a model
translated is reported by `check` with its line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import code, out, result_of, run, script_command, write

DUTCH = (
    "Ik vind JWT met een korte levensduur een goede keuze.\n\n"
    "DECISION: We gebruiken JWT met een vervaltijd van een uur.\n"
    "Q: Hoe trekken we een gestolen token in?\n"
    "CONCERN: Verversingstokens moeten veilig worden opgeslagen."
)
GERMAN = (
    "Ich stimme zu, mit einer Einschränkung.\n\n"
    "TODO: Die Sperrliste für Tokens dokumentieren.\n"
    "Q: Wer pflegt die Sperrliste?"
)


def _setup(providers_file, tmp_path: Path, answers: dict[str, tuple[str, str | None]]) -> dict:
    """One provider per alias answering as `answers` says; the prompt file of each."""
    commands, prompts = {}, {}
    for alias, (comment, vote) in answers.items():
        answer = tmp_path / f"{alias}.json"
        answer.write_text(json.dumps({"comment": comment, "vote": vote}), encoding="utf-8")
        prompts[alias] = tmp_path / f"{alias}.prompt"
        commands[alias] = script_command("from_file.py", str(answer), str(prompts[alias]))
    providers_file(commands)
    return prompts


def _personas(isolated: Path, aliases: list[str]) -> None:
    for alias in aliases:
        write(
            isolated / "participants" / f"{alias}.yaml",
            f"""
            name: AI-{alias.capitalize()}
            alias: {alias}
            role: Reviewer
            provider_hint: {alias}
            personality: You review designs.
            """,
        )


def test_new_language_asks_for_dutch_and_status_reads_the_markers(
    isolated: Path, tmp_path: Path, providers_file
) -> None:
    write(isolated / "discussions.yaml", "default_template: feature\n")
    _personas(isolated, ["noord", "zuid"])
    prompts = _setup(
        providers_file, tmp_path, {"noord": (DUTCH, "READY"), "zuid": (GERMAN, "CHANGES")}
    )
    r = run("new", "Inloggen", "--participants", "noord,zuid", "--language", "nl", "--json")
    assert code(r) == 0, out(r)
    path = isolated / "discussions" / "inloggen.md"
    assert "<!-- Language: nl -->" in path.read_text(encoding="utf-8")
    r = run("turn", str(path))
    assert code(r) == 0, out(r)
    prompt = prompts["noord"].read_text(encoding="utf-8")
    assert "write your comment in Dutch (nl)" in prompt
    assert "the markers at the start of a line (Q:, TODO:, DECISION:" in prompt
    state = result_of(run("status", str(path), "--json"))
    assert state["language"] == "nl"
    assert [d["text"] for d in state["decisions"]] == [
        "We gebruiken JWT met een vervaltijd van een uur."
    ]
    assert len(state["questions"]) == 2 and len(state["todos"]) == 1 and len(state["concerns"]) == 1
    votes = {c["author"]: c["vote"] for c in state["comments"]}
    assert votes == {"AI-Noord": "READY", "AI-Zuid": "CHANGES"}
    assert "Language: nl" in out(run("status", str(path)))
    r = run("check", str(path))
    assert code(r) == 0, out(r)


def test_a_translated_marker_is_reported_by_check_with_its_line(
    isolated: Path, tmp_path: Path, providers_file
) -> None:
    _personas(isolated, ["noord"])
    answer = "Het ontwerp is in orde.\n\nSTEM: GEREED\n- BESLUIT: JWT gebruiken"
    _setup(providers_file, tmp_path, {"noord": (answer, None)})
    run("new", "Inloggen", "--participants", "noord", "--language", "nl")
    path = isolated / "discussions" / "inloggen.md"
    assert code(run("turn", str(path))) == 0
    lines = path.read_text(encoding="utf-8").split("\n")
    stem = lines.index("STEM: GEREED") + 1
    besluit = lines.index("- BESLUIT: JWT gebruiken") + 1
    r = run("check", str(path), "--json")
    assert code(r) == 1
    found = {(p["line"], p["message"].split(";")[0]) for p in json.loads(out(r))}
    assert (stem, "`STEM:` looks like the marker `VOTE:` translated") in found
    assert (besluit, "`BESLUIT:` looks like the marker `DECISION:` translated") in found
    assert [c["vote"] for c in result_of(run("status", str(path), "--json"))["comments"]] == [None]


def test_translations_in_code_or_prose_are_left_alone(isolated: Path) -> None:
    write(
        isolated / "discussions" / "d.md",
        """
        <!-- DISCUSSION -->
        <!-- Title: T -->
        <!-- Language: de -->

        # T

        ---

        Name: Rob

        Frage: in Prosa, nicht in Großbuchstaben.

        ```
        STIMME: BEREIT
        ```

        VOTE: READY

        ---
        """,
    )
    r = run("check", "discussions/d.md")
    assert code(r) == 0, out(r)


def test_the_language_setting_applies_and_a_bad_value_is_refused(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "language: German\n")
    run("new", "Anmeldung")
    state = result_of(run("status", "discussions/anmeldung.md", "--json"))
    assert state["language"] == "German"
    r = run("new", "Other", "--language", "nl<script>")
    assert code(r) == 2
    assert "--language" in out(r)
