"""The web server's JSON API and pages, over real HTTP (uvicorn on loopback)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import code, result_of, run, script_command, write
from ..support.waiting import wait_for
from ..support.web import TOKEN, LiveServer

NAME = "auth.md"


@pytest.fixture
def project(isolated: Path) -> Path:
    assert code(run("new", "Auth", "--context", "Log in with passkeys.")) == 0
    return isolated


@pytest.fixture
def server(project: Path) -> Iterator[LiveServer]:
    s = LiveServer(Workspace.discover())
    yield s
    s.stop()


def file_text(project: Path) -> str:
    return (project / "discussions" / NAME).read_text(encoding="utf-8")


# -- reading ---------------------------------------------------------------------------------


def test_list_and_status_match_the_cli(server: LiveServer, project: Path) -> None:
    rows = server.get("/api/discussions").json()
    assert [r["title"] for r in rows] == ["Auth"]
    row = rows[0]
    assert row["phase"] == "initial_feedback" and row["status"] == "OPEN"
    assert row["questions"] == 0 and row["consensus"] is None and row["changed"].endswith("Z")
    status = server.get(f"/api/discussions/{NAME}").json()
    assert status.pop("file") == "discussions/auth.md"  # relative: no home folder shown
    cli = result_of(run("status", NAME, "--json"))
    cli.pop("file")
    assert status == cli
    assert server.get("/api/discussions/auth").json()["title"] == "Auth"  # .md optional
    text = server.get(f"/api/discussions/{NAME}/text")
    assert text.text == file_text(project)
    assert text.headers["content-type"].startswith("text/markdown")


def test_list_filters_by_status(server: LiveServer) -> None:
    assert server.get("/api/discussions?status=open").json()
    assert server.get("/api/discussions?status=CLOSED").json() == []


@pytest.mark.parametrize(
    "path",
    [
        "/api/discussions/nope.md",
        "/api/discussions/..%2F..%2Fetc%2Fpasswd",
        "/api/discussions/.hidden.md",
        "/api/discussions/%2Fetc%2Fpasswd/text",
        "/d/nope.md",
        "/api/turns/turn-99",
    ],
)
def test_unknown_things_are_404_with_a_json_message(server: LiveServer, path: str) -> None:
    reply = server.get(path)
    assert reply.status == 404, reply.text
    assert "error" in reply.json()


def test_a_markdown_file_that_is_not_a_discussion_is_409(server: LiveServer, project: Path) -> None:
    write(project / "discussions" / "notes.md", "# Notes\n\nJust notes.\n")
    reply = server.get("/api/discussions/notes.md")
    assert reply.status == 409 and "not a discussion" in reply.json()["error"]
    reply = server.post("/api/discussions/notes.md/comments", {"author": "Rob", "text": "hi"})
    assert reply.status == 409
    assert (project / "discussions" / "notes.md").read_text() == "# Notes\n\nJust notes.\n"


def test_a_file_with_conflict_lines_refuses_writes_with_409(
    server: LiveServer, project: Path
) -> None:
    path = project / "discussions" / NAME
    conflicted = path.read_text() + "\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n"
    path.write_text(conflicted)
    reply = server.post(f"/api/discussions/{NAME}/comments", {"author": "Rob", "text": "hi"})
    assert reply.status == 409
    assert "merge-conflict" in reply.json()["error"]
    assert path.read_text() == conflicted


# -- the token -------------------------------------------------------------------------------


def test_writes_need_the_token_in_the_authorization_header(
    server: LiveServer, project: Path
) -> None:
    before = file_text(project)
    body = {"author": "Rob", "text": "hello"}
    path = f"/api/discussions/{NAME}/comments"
    assert server.post(path, body, token=None).status == 401
    assert server.post(path, body, token="wrong").status == 403
    # A cookie or a query token is not enough to write: another site's form could send those.
    cookie = {"Cookie": f"{server.settings.cookie}={TOKEN}"}
    assert server.post(path, body, token=None, headers=cookie).status == 401
    assert server.post(path + f"?token={TOKEN}", body, token=None).status == 401
    assert file_text(project) == before
    assert server.post(path, body).status == 201
    assert "hello" in file_text(project)


def test_loopback_server_refuses_a_foreign_host_name(server: LiveServer) -> None:
    # A DNS-rebinding page would arrive with its own host name.
    reply = server.get("/api/discussions", headers={"Host": f"evil.example:{server.port}"})
    assert reply.status == 403
    assert (
        server.get("/api/discussions", headers={"Host": f"localhost:{server.port}"}).status == 200
    )


def test_public_server_needs_the_token_to_read(project: Path) -> None:
    s = LiveServer(Workspace.discover(), public=True)
    try:
        assert s.get("/api/discussions").status == 401
        assert s.get("/api/discussions", token="nope").status == 403
        assert s.get("/api/discussions", token=TOKEN).status == 200
        assert s.get(f"/api/discussions?token={TOKEN}").status == 200
        assert s.get("/", headers={"Cookie": f"{s.settings.cookie}={TOKEN}"}).status == 200
        # A stale cookie (an earlier server) does not hide the token in the address.
        stale = {"Cookie": f"{s.settings.cookie}=old-token"}
        assert s.get(f"/api/discussions?token={TOKEN}", headers=stale).status == 200
        assert s.get("/").status == 401
        assert s.get(f"/api/discussions/{NAME}/events").status == 401
    finally:
        s.stop()


def test_the_token_in_the_address_becomes_a_strict_cookie(server: LiveServer) -> None:
    reply = server.get(f"/d/{NAME}?token={TOKEN}")
    assert reply.status == 303 and reply.headers["location"] == f"/d/{NAME}"
    cookie = reply.headers["set-cookie"]
    assert f"discussions_token_{server.port}={TOKEN}" in cookie  # one cookie per server port
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    page = server.get(f"/d/{NAME}", headers={"Cookie": f"{server.settings.cookie}={TOKEN}"}).text
    assert f'name="discussions-token" content="{TOKEN}"' in page
    assert 'id="comment-form"' in page
    anonymous = server.get(f"/d/{NAME}").text
    assert TOKEN not in anonymous and 'id="comment-form"' not in anonymous
    assert "Read-only" in anonymous


# -- writing ---------------------------------------------------------------------------------


def test_comment_with_vote_lands_in_the_file(server: LiveServer, project: Path) -> None:
    reply = server.post(
        f"/api/discussions/{NAME}/comments",
        {"author": "Rob", "text": "Looks right.\n\nQ: What about recovery?", "vote": "ready"},
    )
    assert reply.status == 201, reply.text
    assert reply.json()["vote"] == "READY"
    d = Discussion.load(project / "discussions" / NAME, Workspace.discover())
    assert d.comments[-1].author == "Rob" and d.comments[-1].vote == "READY"
    assert [q.text for q in d.questions] == ["What about recovery?"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"author": "Rob", "text": "x", "vote": "MAYBE"}, "MAYBE"),
        ({"author": "", "text": "x"}, "author"),
        ({"author": "Rob", "text": " "}, "text"),
        ({"author": 3, "text": "x"}, "'author' must be a string"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_comments_are_400_with_the_cli_message(
    server: LiveServer, project: Path, body: object, message: str
) -> None:
    before = file_text(project)
    reply = server.post(f"/api/discussions/{NAME}/comments", body)
    assert reply.status == 400, reply.text
    assert message in reply.json()["error"]
    assert file_text(project) == before


def test_a_body_that_is_not_json_is_400(server: LiveServer) -> None:
    reply = server.request("POST", f"/api/discussions/{NAME}/comments", raw=b"{nope")
    assert reply.status == 400 and "not JSON" in reply.json()["error"]


def test_advance_close_and_reopen(server: LiveServer, project: Path) -> None:
    api = f"/api/discussions/{NAME}"
    assert server.post(f"{api}/advance").json()["phase"] == "detailed_review"
    assert server.post(f"{api}/advance", {"to": "nowhere"}).status == 400
    assert server.post(f"{api}/close", {"status": "decided"}).json()["status"] == "DECIDED"
    assert server.post(f"{api}/close", {"status": "OPEN"}).status == 400
    assert server.post(f"{api}/reopen").json()["status"] == "OPEN"
    assert "STATUS-CHANGE" in file_text(project)


def wait_done(server: LiveServer, ticket: str) -> dict[str, object]:
    def finished() -> dict[str, object] | None:
        job: dict[str, object] = server.get(f"/api/turns/{ticket}").json()
        return job if job["state"] != "running" else None

    return wait_for(finished, 30, message="the turn to finish")


def test_a_turn_returns_a_ticket_at_once_and_appends(server: LiveServer, project: Path) -> None:
    reply = server.post(
        f"/api/discussions/{NAME}/turns", {"participants": ["architect"], "provider": "mock"}
    )
    assert reply.status == 202, reply.text
    job = reply.json()
    assert job["state"] == "running" and job["participants"] == ["architect"]
    done = wait_done(server, job["ticket"])
    assert done["state"] == "done", done
    assert "Name: AI-Architect" in file_text(project)


def test_unknown_participant_is_400(server: LiveServer) -> None:
    reply = server.post(f"/api/discussions/{NAME}/turns", {"participants": ["nobody"]})
    assert reply.status == 400 and "nobody" in reply.json()["error"]
    reply = server.post(f"/api/discussions/{NAME}/turns", {"participants": "architect"})
    assert reply.status == 400


def test_a_run_stops_and_reports(server: LiveServer, project: Path) -> None:
    reply = server.post(
        f"/api/discussions/{NAME}/runs",
        {"participants": ["architect"], "provider": "mock", "rounds": 1},
    )
    assert reply.status == 202, reply.text
    done = wait_done(server, reply.json()["ticket"])
    assert done["state"] == "done", done
    assert done["result"]["rounds"] == 1  # type: ignore[index]
    assert "RUN-STOP" in file_text(project)
    assert server.post(f"/api/discussions/{NAME}/runs", {"rounds": 0}).status == 400


# -- pages -----------------------------------------------------------------------------------


def test_pages_escape_comments_and_forbid_inline_scripts(server: LiveServer, project: Path) -> None:
    server.post(
        f"/api/discussions/{NAME}/comments",
        {"author": "Mallory", "text": "<script>alert(1)</script> <img src=x onerror=alert(2)>"},
    )
    reply = server.get(f"/d/{NAME}")
    assert reply.status == 200
    csp = reply.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("style-src")[0]
    assert "<script>alert(1)" not in reply.text and "&lt;script&gt;alert(1)" in reply.text
    assert "<img src=x" not in reply.text
    listing = server.get("/")
    assert listing.status == 200 and 'href="/d/auth.md"' in listing.text
    js = server.get("/static/app.js")
    assert js.status == 200 and js.headers["content-type"].startswith("text/javascript")
    assert server.get("/static/other.js").status == 404


def test_exports_from_the_server(server: LiveServer) -> None:
    import json

    page = server.get(f"/api/discussions/{NAME}/export?format=html")
    assert page.status == 200 and "attachment" in page.headers["content-disposition"]
    assert "<script" not in page.text
    data = json.loads(server.get(f"/api/discussions/{NAME}/export?format=json").body)
    assert data["title"] == "Auth"
    assert server.get(f"/api/discussions/{NAME}/export?format=pdf").status == 400
    post = server.post(f"/api/discussions/{NAME}/post", {"provider": "mock"})
    assert post.status == 200, post.text
    assert "Auth" in post.json()["markdown"]


# -- events ----------------------------------------------------------------------------------


def test_events_bring_appends_from_another_writer(server: LiveServer, project: Path) -> None:
    stream = server.events(f"/api/discussions/{NAME}/events")
    try:
        assert stream.status == 200
        assert code(run("comment", NAME, "From the terminal.", "--author", "Ann")) == 0
        event = stream.next("comment")
        assert [c["author"] for c in event["comments"]] == ["Ann"]
        assert "From the terminal." in event["comments"][0]["html"]
        assert event["count"] == 1
        assert stream.get("panel")["html"]
        assert code(run("advance", NAME)) == 0
        assert stream.next("phase")["phase"] == "detailed_review"
        # Not an append: the page is told to reload.
        path = project / "discussions" / NAME
        path.write_text(path.read_text().replace("Log in with passkeys.", "Changed."))
        stream.next("reload")
    finally:
        stream.close()


def test_events_catch_a_page_up(server: LiveServer) -> None:
    """A page rendered before an append, connecting after it, gets the comment at once."""
    assert code(run("comment", NAME, "Early.", "--author", "Ann")) == 0
    stream = server.events(f"/api/discussions/{NAME}/events?count=0&size=10")
    try:
        assert [c["author"] for c in stream.next("comment")["comments"]] == ["Ann"]
    finally:
        stream.close()


def test_a_turn_streams_chunks_before_its_answer(
    server: LiveServer,
    project: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    gate = tmp_path / "gate"
    providers_file(
        {"slow": script_command("slow_print.py", "0", "PARTIAL-LINE here", "VOTE: READY")}
    )
    import os

    os.environ["SLOW_PRINT_GATE"] = str(gate)
    try:
        stream = server.events(f"/api/discussions/{NAME}/events")
        reply = server.post(
            f"/api/discussions/{NAME}/turns", {"participants": ["architect"], "provider": "slow"}
        )
        assert reply.status == 202, reply.text
        assert stream.next("turn-start")["participants"] == ["architect"]
        assert stream.next("answer-start")["participant"] == "architect"
        chunk = stream.next("chunk")
        assert "PARTIAL-LINE here" in chunk["text"]
        assert "PARTIAL-LINE" not in file_text(project)  # streamed before it was written
        gate.touch()
        answer = stream.next("answer")
        assert answer["status"] == "posted" and answer["error"] is None
        assert "PARTIAL-LINE here" in "".join(c["html"] for c in stream.get("comment")["comments"])
        assert stream.get("turn-end")["state"] == "done"
    finally:
        os.environ.pop("SLOW_PRINT_GATE", None)
        gate.touch()
        stream.close()


def test_many_pages_follow_one_file(server: LiveServer) -> None:
    streams = [server.events(f"/api/discussions/{NAME}/events") for _ in range(5)]
    try:
        threading.Thread(target=lambda: run("comment", NAME, "To all.", "--author", "Ann")).start()
        for s in streams:
            assert s.next("comment")["count"] == 1
    finally:
        for s in streams:
            s.close()


# -- found in review -------------------------------------------------------------------------


def test_a_second_turn_on_the_same_discussion_is_refused_while_one_runs(
    server: LiveServer,
    project: Path,
    providers_file,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv("SLOW_PRINT_GATE", str(gate))
    providers_file({"slow": script_command("slow_print.py", "0", "Thinking.", "VOTE: READY")})
    api = f"/api/discussions/{NAME}"
    first = server.post(f"{api}/turns", {"participants": ["architect"], "provider": "slow"})
    assert first.status == 202
    ticket = first.json()["ticket"]
    try:
        again = server.post(f"{api}/turns", {"participants": ["architect"], "provider": "slow"})
        assert again.status == 409 and ticket in again.json()["error"]
        assert server.post(f"{api}/runs", {"rounds": 1, "provider": "slow"}).status == 409
    finally:
        gate.touch()
    assert wait_done(server, ticket)["state"] == "done"
    assert file_text(project).count("Name: AI-Architect") == 1


@pytest.mark.parametrize(
    "headers, path",
    [
        ({"Authorization": "Bearer \xe9"}, None),
        ({}, "?token=%C3%A9"),
        ({"Cookie": "discussions_token_PORT=\xe9"}, None),
    ],
)
def test_a_token_with_any_characters_is_refused_not_a_crash(
    project: Path, headers: dict[str, str], path: str | None
) -> None:
    s = LiveServer(Workspace.discover(), public=True)
    try:
        sent = {k: v.replace("PORT", str(s.port)) for k, v in headers.items()}
        reply = s.request("GET", "/api/discussions" + (path or ""), token=None, headers=sent)
        assert reply.status == 403, reply.text
        write = s.request(
            "POST",
            f"/api/discussions/{NAME}/comments",
            {"author": "a", "text": "b"},
            token=None,
            headers={"Authorization": "Bearer \xe9"},
        )
        assert write.status == 403
    finally:
        s.stop()


@pytest.mark.parametrize(
    ("provider", "message"),
    [("replay:/etc/passwd", "command line"), ("nope", "nope")],
)
def test_providers_named_over_http_are_checked_first(
    server: LiveServer, project: Path, provider: str, message: str
) -> None:
    before = file_text(project)
    api = f"/api/discussions/{NAME}"
    for path, body in [
        ("turns", {"participants": ["architect"], "provider": provider}),
        ("runs", {"rounds": 1, "provider": provider}),
        ("post", {"provider": provider}),
    ]:
        reply = server.post(f"{api}/{path}", body)
        assert reply.status == 400, (path, reply.text)
        assert message in reply.json()["error"]
    assert file_text(project) == before


def test_a_link_out_of_the_project_is_not_served(
    server: LiveServer, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text((project / "discussions" / NAME).read_text().replace("Auth", "Secret"))
    (project / "discussions" / "link.md").symlink_to(outside)
    for path in ("/api/discussions/link.md", "/api/discussions/link.md/text", "/d/link.md"):
        reply = server.get(path)
        assert reply.status == 404 and "Secret" not in reply.text


def test_a_link_out_of_the_project_is_never_listed(
    server: LiveServer, project: Path, tmp_path: Path
) -> None:
    """Listing, the list page and the MCP resources show only what the API would serve."""
    outside = tmp_path / "elsewhere.md"
    outside.write_text((project / "discussions" / NAME).read_text().replace("Auth", "Secret"))
    (project / "discussions" / "link.md").symlink_to(outside)
    (project / "discussions" / "inside.md").symlink_to(NAME)  # a link within the project
    rows = server.get("/api/discussions").json()
    assert sorted(r["file"] for r in rows) == ["discussions/auth.md", "discussions/inside.md"]
    assert "Secret" not in server.get("/api/discussions").text
    assert "Secret" not in server.get("/").text
    assert server.get("/api/discussions/inside.md").status == 200


def test_a_very_long_name_is_404(server: LiveServer, project: Path) -> None:
    name = "x" * 5000
    before = file_text(project)
    replies = [server.get(p) for p in (f"/api/discussions/{name}", f"/d/{name}.md")]
    replies.append(server.get(f"/api/discussions/{name}/text"))
    replies.append(server.post(f"/api/discussions/{name}/comments", {"author": "R", "text": "hi"}))
    for reply in replies:
        assert reply.status == 404, reply.text
        assert "no such discussion" in reply.json()["error"] and len(reply.text) < 300
    assert file_text(project) == before


def test_a_deeply_nested_body_is_400(server: LiveServer, project: Path) -> None:
    before = file_text(project)
    deep = b"[" * 100_000 + b"]" * 100_000
    for path in ("comments", "turns", "post", "advance"):
        reply = server.request("POST", f"/api/discussions/{NAME}/{path}", raw=deep)
        assert reply.status == 400, (path, reply.text)
        assert "nested" in reply.json()["error"]
    obj = b'{"text": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001
    reply = server.request("POST", f"/api/discussions/{NAME}/comments", raw=obj)
    assert reply.status == 400, reply.text
    assert file_text(project) == before


def test_a_fifo_in_the_folder_blocks_nothing(server: LiveServer, project: Path) -> None:
    import os

    from discussions.ops.service import DiscussionTools

    os.mkfifo(project / "discussions" / "pipe.md")
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(DiscussionTools().discussion_files()))
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and [p.name for p in found[0]] == [NAME]  # type: ignore[attr-defined]
    assert [r["title"] for r in server.get("/api/discussions").json()] == ["Auth"]


def test_bad_fields_and_bodies(server: LiveServer) -> None:
    api = f"/api/discussions/{NAME}"
    reply = server.post(f"{api}/turns", {"participants": ["architect"], "sequential": "false"})
    assert reply.status == 400 and "true or false" in reply.json()["error"]
    big = b'{"author": "a", "text": "' + b"x" * (2 << 20) + b'"}'
    assert server.request("POST", f"{api}/comments", raw=big).status == 413


def test_exports_are_saved_under_their_unicode_name(server: LiveServer, project: Path) -> None:
    assert code(run("new", "Über", "--file", "über.md")) == 0
    reply = server.get("/api/discussions/%C3%BCber.md/export?format=json")
    assert reply.status == 200, reply.text
    assert "filename*=UTF-8''%C3%BCber.json" in reply.headers["content-disposition"]


def test_a_page_whose_text_is_not_the_files_beginning_reloads(server: LiveServer) -> None:
    stream = server.events(f"/api/discussions/{NAME}/events?count=0&size=10&hash=0000")
    try:
        stream.next("reload")
    finally:
        stream.close()


def test_the_bound_address_is_accepted_as_a_host() -> None:
    from starlette.requests import Request

    from discussions.web.access import ApiError, Settings, check_host

    def request(host: str) -> Request:
        return Request({"type": "http", "headers": [(b"host", host.encode())], "query_string": b""})

    settings = Settings("t", port=8765, host="127.0.0.2")
    check_host(settings, request("127.0.0.2:8765"))
    check_host(settings, request("localhost:8765"))
    check_host(Settings("t", port=8765, host="::1"), request("[::1]:8765"))
    for bad in ("127.0.0.3:8765", "localhost.:8765", "evil.example", "", "127.0.0.2:9999"):
        with pytest.raises(ApiError):
            check_host(settings, request(bad))


def test_a_grown_last_comment_is_sent_again_and_older_ones_are_not(
    server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, "First.", "--author", "Ann")) == 0
    assert code(run("comment", NAME, "Second.", "--author", "Bob")) == 0
    stream = server.events(f"/api/discussions/{NAME}/events")
    try:
        with (project / "discussions" / NAME).open("a", encoding="utf-8") as f:
            f.write("\nAn afterthought.\n")  # no separator: Bob's comment grows
        event = stream.next("comment")
        assert [c["author"] for c in event["comments"]] == ["Bob"]
        assert "An afterthought." in event["comments"][0]["html"]
        assert event["count"] == 2
    finally:
        stream.close()


# -- a new discussion ------------------------------------------------------------------------


def test_a_new_discussion_is_made_as_the_cli_makes_it(server: LiveServer, project: Path) -> None:
    made = server.post(
        "/api/discussions",
        {"title": "Rate limits", "template": "adr", "context": "Clients hammer the API."},
    )
    assert made.status == 201, made.text
    data = made.json()
    assert data["file"] == "discussions/rate-limits.md" and data["href"] == "/d/rate-limits.md"
    d = Discussion.load(project / "discussions" / "rate-limits.md", Workspace.discover())
    assert d.title == "ADR: Rate limits" and d.template is not None and d.template.name == "adr"
    assert "Clients hammer the API." in d.preamble
    # The same as `discussions new` with the same input, byte for byte but the time stamp.
    assert (
        code(
            run(
                "new",
                "Rate limits",
                "-t",
                "adr",
                "--context",
                "Clients hammer the API.",
                "--file",
                "cli.md",
            )
        )
        == 0
    )
    via_cli = (project / "discussions" / "cli.md").read_text(encoding="utf-8")

    def stamp(text: str) -> str:
        return "\n".join(x for x in text.splitlines() if not x.startswith("<!-- Created:"))

    assert stamp(d.text) == stamp(via_cli)
    listed = {r["file"] for r in server.get("/api/discussions").json()}
    assert "discussions/rate-limits.md" in listed
    # Refused: no title, an unknown template, a name taken, no token. Nothing is written.
    before = sorted(p.name for p in (project / "discussions").iterdir())
    assert server.post("/api/discussions", {"title": "  "}).status == 400
    unknown = server.post("/api/discussions", {"title": "X", "template": "nope"})
    assert unknown.status == 400 and "nope" in unknown.json()["error"]
    taken = server.post("/api/discussions", {"title": "Rate limits"})
    assert taken.status >= 400 and "already exists" in taken.json()["error"]
    assert server.post("/api/discussions", {"title": "Y"}, token=None).status in (401, 403)
    assert sorted(p.name for p in (project / "discussions").iterdir()) == before


def test_the_list_page_offers_a_new_discussion_only_with_the_token(
    server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, "Fine.", "--author", "Ann", "--vote", "READY")) == 0
    page = server.get("/", headers={"Cookie": f"{server.settings.cookie}={TOKEN}"})
    assert page.status == 200
    assert 'id="new-form"' in page.text and '<option value="feature" selected>' in page.text
    # The consensus column says where the vote stands (not blank).
    assert "READY, not reached" in page.text
    assert 'id="new-form"' not in server.get("/").text
    # A discussion's page links back to the list.
    assert 'id="to-list" href="/"' in server.get(f"/d/{NAME}").text


def test_the_close_statuses_are_the_known_finished_ones(isolated: Path) -> None:
    """The page's "Close with status" offers every status a discussion can finish with, from
    the one set `close` accepts, and no status that would leave it open."""
    from discussions.settings.templates import OPEN_STATUSES
    from discussions.settings.workspace import Workspace
    from discussions.web.controls import close_statuses

    ws = Workspace.discover()
    statuses = close_statuses(ws)
    assert statuses[0] == "CLOSED"
    assert {"DECIDED", "REJECTED", "APPROVED"} <= set(statuses)
    assert not set(statuses) & {*OPEN_STATUSES, *(t.status.upper() for t in ws.templates)}
