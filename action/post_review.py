"""Post a council review's verdict on a pull request as one sticky comment (the GitHub Action's
last step, see action.yml).

    python3 post_review.py REVIEW.json

REVIEW.json is what `discussions review RANGE @alias... --json` printed. The verdict goes to
the job summary ($GITHUB_STEP_SUMMARY) always, and to the pull request as a comment when the
event is a pull request from this repository: the comment carries a hidden marker, so a later
run finds it and edits it instead of adding another. Nothing is posted for a pull request from
a fork (its workflow must not be able to write here) or without a token.

Standard library only: it runs with the runner's own Python. The REST calls are GitHub's
"issue comments" endpoints (a pull request is an issue to them): list
`GET /repos/{repo}/issues/{number}/comments` (paged, at most 100 a page), create
`POST` to the same path, update `PATCH /repos/{repo}/issues/comments/{id}`. $GITHUB_API_URL
(set by the runner; GitHub Enterprise has its own) is the base, so tests point it at a fake.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MARKER = "<!-- discussions-review -->"
"""The hidden first line that marks the comment this script owns."""

PAGE = 100
DEFAULT_AUTHOR = "github-actions[bot]"
"""Whose marked comment is ours: the workflow token's identity (another user's comment that
happens to contain the marker is left alone). COMMENT_AUTHOR overrides it for a personal token."""


class ApiError(Exception):
    """A REST call that failed, with what GitHub said."""


def main(argv: list[str]) -> int:
    """Render the verdict, put it in the job summary, post it where allowed; the exit code
    says whether posting failed (not whether the council agreed: the check step gates)."""
    if len(argv) != 2:
        print("usage: post_review.py REVIEW.json", file=sys.stderr)
        return 2
    try:
        review = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"::error::cannot read the review result {argv[1]}: {e}")
        return 1
    if not isinstance(review, dict):
        print(f"::error::{argv[1]} is not what `discussions review --json` prints")
        return 1
    body = render(review)
    _write_summary(body)
    return post(body)


def post(body: str) -> int:
    """Create or update the sticky comment, unless the event says not to post at all."""
    pr = _event().get("pull_request")
    if not pr:
        print("::notice::not a pull request event: the verdict is in the job summary only")
        return 0
    if is_fork(pr):
        print(
            "::notice::pull request from a fork: the verdict is in the job summary, "
            "nothing is posted to the pull request"
        )
        return 0
    token = os.environ.get("GITHUB_TOKEN", "")
    if not token:
        print("::warning::no github-token: the verdict is in the job summary only")
        return 0
    api = Api(os.environ.get("GITHUB_API_URL", "https://api.github.com"), token)
    try:
        url = upsert(api, pr["base"]["repo"]["full_name"], int(pr["number"]), body)
    except ApiError as e:
        print(f"::error::could not post the review comment: {e}")
        return 1
    print(f"Review verdict posted: {url}")
    return 0


def is_fork(pr: dict[str, Any]) -> bool:
    """Whether the pull request comes from another repository (a fork; a deleted fork has no
    head repository at all): its workflow run must not write to this one."""
    head = (pr.get("head") or {}).get("repo") or {}
    base = (pr.get("base") or {}).get("repo") or {}
    return not head or head.get("full_name") != base.get("full_name")


def upsert(api: Api, repo: str, number: int, body: str) -> str:
    """Edit our marked comment on pull request `number`, or create it; its web address."""
    author = os.environ.get("COMMENT_AUTHOR") or DEFAULT_AUTHOR
    mine = find_sticky(api, repo, number, author)
    if mine is None:
        made = api.call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": body})
    else:
        made = api.call("PATCH", f"/repos/{repo}/issues/comments/{mine['id']}", {"body": body})
    return str(made.get("html_url", ""))


def find_sticky(api: Api, repo: str, number: int, author: str) -> dict[str, Any] | None:
    """The first comment by `author` that starts with the marker, looking through every page."""
    page = 1
    while True:
        path = f"/repos/{repo}/issues/{number}/comments?per_page={PAGE}&page={page}"
        comments = api.call("GET", path)
        if not isinstance(comments, list):
            raise ApiError(f"GET {path}: not a list of comments")
        for c in comments:
            if _is_ours(c, author):
                return dict(c)
        if len(comments) < PAGE:
            return None
        page += 1


def _is_ours(comment: dict[str, Any], author: str) -> bool:
    login = (comment.get("user") or {}).get("login")
    return login == author and str(comment.get("body", "")).startswith(MARKER)


class Api:
    """GitHub's REST API with a token: JSON in, JSON out, errors as `ApiError`."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as e:
            raise ApiError(f"{method} {path}: HTTP {e.code} {_reason(e)}{_hint(e.code)}") from e
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ApiError(f"{method} {path}: {e}") from e


def _reason(e: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(e.read()).get("message", e.reason))
    except (ValueError, AttributeError, OSError):
        return str(e.reason)


def _hint(code: int) -> str:
    if code in (401, 403, 404):
        return " (the workflow needs `permissions: pull-requests: write`)"
    return ""


def render(review: dict[str, Any]) -> str:
    """The comment: the marker, the outcome, one row per vote, the concerns and questions."""
    consensus = review.get("consensus") or {}
    outcome = "consensus: " + str(consensus.get("outcome")) if consensus.get("reached") else None
    lines = [
        MARKER,
        f"### Council review: {outcome or 'no consensus yet'}",
        "",
        f"**{_text(review.get('title', ''))}**: {_text(consensus.get('reason', ''))}",
        "",
        "| Participant | Vote | Answered by |",
        "|---|---|---|",
        *_vote_rows(review),
    ]
    for heading, key in (("Concerns", "concerns"), ("Open questions", "questions")):
        items = review.get(key) or []
        if items:
            lines += ["", f"**{heading}**", ""]
            lines += [f"- {_text(i.get('text', ''))} ({_text(i.get('author', ''))})" for i in items]
    lines += ["", f"<sub>{_text(_source(review))}</sub>", ""]
    return "\n".join(lines)


def _vote_rows(review: dict[str, Any]) -> list[str]:
    by = {c.get("author"): (c.get("meta") or {}).get("provider", "") for c in _comments(review)}
    votes = review.get("votes") or {}
    rows = [f"| {_cell(n)} | {_cell(v)} | {_cell(by.get(n, ''))} |" for n, v in votes.items()]
    waiting = (review.get("consensus") or {}).get("waiting_for") or []
    rows += [f"| {_cell(name)} | not voted | |" for name in waiting]
    return rows


def _comments(review: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in review.get("comments") or [] if isinstance(c, dict)]


def _source(review: dict[str, Any]) -> str:
    mock = any((c.get("meta") or {}).get("provider") == "mock" for c in _comments(review))
    note = " The built-in mock answered: no AI CLI was installed for this job." if mock else ""
    return f"discussions review: {Path(str(review.get('file', ''))).name}.{note}"


def _text(value: object) -> str:
    """Participants' text, kept from acting as markup here: no HTML (so it cannot forge the
    marker or hide text) and no @-mention that would notify someone."""
    text = " ".join(str(value).split())
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("@", "@\u200b")


def _cell(value: object) -> str:
    return _text(value).replace("|", "\\|")


def _event() -> dict[str, Any]:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_summary(body: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(body + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
