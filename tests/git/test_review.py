"""`discussions review`: a code-review discussion from a git diff, rendered as GitHub shows it."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import cmarkgfm
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.cli import cli
from discussions.syntax.fences import fence_block, fence_diff_context, looks_like_diff
from discussions.syntax.parse import parse_document

from ..support.git import commit_files, submodule_with_secret
from ..support.git import git_out as git

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

# cmark writes <pre><code class="language-diff">; with GitHub's option, <pre lang="diff"><code>.
CODE_BLOCK = re.compile(
    r'<pre(?: lang="diff")?><code(?: class="language-diff")?>(.*?)</code></pre>', re.S
)


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository with a first commit: a module and a README."""
    files = {
        "app.py": "def retry():\n    return 1\n",
        "README.md": "# App\n\n```python\nretry()\n```\n",
    }
    return commit_files(repo, files)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def render(text: str) -> str:
    """As GitHub renders it; the plain CommonMark rendering must agree on the code block."""
    page = str(cmarkgfm.github_flavored_markdown_to_html(text))
    plain = str(cmarkgfm.markdown_to_html(text))
    assert CODE_BLOCK.findall(page) == re.findall(
        r'<pre><code class="language-diff">(.*?)</code></pre>', plain, re.S
    )
    return page


def created_file(output: str) -> Path:
    m = re.search(r"Created: (\S+)", output)
    assert m, output
    return Path(m.group(1))


def test_review_of_the_working_tree_renders_the_diff_as_code(repo: Path) -> None:
    (repo / "app.py").write_text("def retry(times=3):\n    return times\n")
    # Content with a four-backtick run: the fence around the diff must be longer.
    (repo / "README.md").write_text("# App\n\n````markdown\n```python\nretry(3)\n```\n````\n")
    result = invoke("review")
    assert result.exit_code == 0, result.output
    path = created_file(result.output)
    text = path.read_text()
    assert "**Branch:** `main` — working tree against HEAD" in text
    assert "| `app.py` | 2 | 2 |" in text
    assert "\n`````diff\n" in text
    assert not parse_document(text).warnings
    assert invoke("check", str(path)).exit_code == 0

    page = render(text)
    blocks = CODE_BLOCK.findall(page)
    assert len(blocks) == 1
    code = html.unescape(blocks[0])
    assert "--- a/app.py\n+++ b/app.py\n" in code
    assert "+````markdown\n" in code and "+````\n" in code
    # The document goes on after the diff: the fence was not closed early or left open.
    assert "<h2>Areas of Focus</h2>" in page
    assert "Ask for a review: discussions turn" in result.output


def test_review_of_a_range_lists_commits_and_respects_the_budget(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app.py").write_text("def retry(times=3):\n    return times\n")
    git(repo, "commit", "-q", "-am", "Retry takes a count")
    (repo / "big.txt").write_text("x\n" * 5000)
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "Add a big file")
    result = invoke("review", "main..feature", "--budget", "2000", "--title", "Retry", "--json")
    assert result.exit_code == 0, result.output
    assert '"omitted_files": [\n    "big.txt"\n  ]' in result.output
    path = Path("discussions/retry.md")
    text = path.read_text()
    assert "<!-- Title: Code Review: Retry -->" in text
    assert "**Commits:**" in text and "Retry takes a count" in text and "Add a big file" in text
    assert "| `big.txt` | 5000 | 0 |" in text
    assert "Diff left out to stay within 2000 characters: `big.txt`." in text
    code = html.unescape(CODE_BLOCK.findall(render(text))[0])
    assert "+def retry(times=3):" in code and "+x\n" not in code
    # A second review of the same change gets its own file.
    again = invoke("review", "main..feature", "--title", "Retry")
    assert "discussions/retry-2.md" in again.output


def test_review_staged_with_a_participant_turn(repo: Path) -> None:
    (repo / "app.py").write_text("def retry():\n    return 2\n")
    git(repo, "add", "app.py")
    (repo / "README.md").write_text("unstaged change, not reviewed\n")
    result = invoke("review", "--staged", "@security")
    assert result.exit_code == 0, result.output
    assert "AI-Security: posted via mock" in result.output
    text = created_file(result.output).read_text()
    assert "staged changes against HEAD" in text and "README.md" not in text.split("---")[0]
    assert "\nName: AI-Security\n" in text


def test_review_with_nothing_to_review(repo: Path) -> None:
    result = invoke("review")
    assert result.exit_code == 1
    assert "nothing to review: no changes (working tree against HEAD)" in result.output
    assert invoke("review", "a..b", "c..d").exit_code == 2


def test_piped_git_diff_is_fenced_for_templates_with_diff_context(repo: Path) -> None:
    (repo / "app.py").write_text("def retry():\n    return '```'\n")
    diff = git(repo, "diff")
    assert looks_like_diff(diff)
    fenced = fence_diff_context(diff)
    code = html.unescape(CODE_BLOCK.findall(render(fenced))[0])
    assert code == diff
    assert fence_diff_context("Just prose about a change.") == "Just prose about a change."


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(["`", "~", "a", " ", "\n", "-", "+", ">", "#"]), max_size=80)
)
def test_fence_block_cannot_be_closed_by_its_content(text: str) -> None:
    page = render(fence_block(text, "diff") + "\nafter\n")
    blocks = CODE_BLOCK.findall(page)
    assert len(blocks) == 1
    expected = text if text.endswith("\n") or not text else text + "\n"
    assert html.unescape(blocks[0]) == expected
    assert page.rstrip().endswith("<p>after</p>")


@pytest.mark.slow
def test_review_shows_no_path_the_evidence_rule_refuses(repo: Path) -> None:
    """The diff is asked for the allowed paths only: a secret folder, a secret name and an
    ``evidence.exclude`` path are named as left out, their content never written."""
    (repo / "discussions.yaml").write_text("evidence:\n  exclude: ['private/*']\n")
    for rel in ("Secret_stuff/config.yaml", ".env.production", "private/notes.txt"):
        (repo / rel).parent.mkdir(exist_ok=True)
        (repo / rel).write_text("old\n")
    git(repo, "add", "-f", "-A")
    git(repo, "commit", "-q", "-m", "configuration")
    git(repo, "checkout", "-q", "-b", "feature")
    for rel in ("Secret_stuff/config.yaml", ".env.production", "private/notes.txt"):
        (repo / rel).write_text(f"TOKEN_{len(rel)}_HIDDEN\n")
    (repo / "app.py").write_text("def retry(times=3):\n    return times\n")
    for args in (("review",), ("review", "--staged")):
        if args[-1] == "--staged":
            git(repo, "add", "-A")
        result = invoke(*args, "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        text = Path(data["file"]).read_text()
        assert "HIDDEN" not in text and "+def retry(times=3):" in text
        assert [f["path"] for f in data["refused_files"]] == [
            ".env.production",
            "Secret_stuff/config.yaml",
            "private/notes.txt",
        ]
        for rel in ("Secret_stuff/config.yaml", ".env.production", "private/notes.txt"):
            assert re.search(rf"`{re.escape(rel)}` \(refused: [^)]+\)", text), text
    git(repo, "commit", "-q", "-m", "change them")
    result = invoke("review", "main..feature", "--json")
    text = Path(json.loads(result.output)["file"]).read_text()
    assert "HIDDEN" not in text and "+def retry(times=3):" in text
    assert "`Secret_stuff/config.yaml` (refused:" in text


@pytest.mark.slow
def test_a_submodule_s_files_are_never_inlined_in_the_review(repo: Path, tmp_path: Path) -> None:
    """With ``diff.submodule=diff`` in the repository's configuration, git writes the diff of
    every file inside a submodule under the submodule's one path, which the rule allowed: its
    ``.env`` went into the discussion. The review asks for a submodule's commits only."""
    submodule_with_secret(repo, tmp_path)
    (repo / "lib" / ".env").write_text("TOKEN_IN_SUBMODULE\nTOKEN_CHANGED_IN_SUBMODULE\n")
    git(repo / "lib", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-am", "t")
    (repo / "app.py").write_text("def retry(times=3):\n    return times\n")
    result = invoke("review", "--json")
    assert result.exit_code == 0, result.output
    text = Path(json.loads(result.output)["file"]).read_text()
    assert "TOKEN_" not in text and "+def retry(times=3):" in text
    assert "lib" in text  # the submodule's move is shown, as its commits
