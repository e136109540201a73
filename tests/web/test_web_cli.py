"""`discussions serve` as a user runs it: a real process, its first line, a busy port, no extra."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ..conftest import code, run

pytest.importorskip("uvicorn")


def serve(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "discussions", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.slow
def test_serve_prints_its_address_with_the_token_first_and_stops_on_sigterm(
    isolated: Path,
) -> None:
    assert code(run("new", "Auth")) == 0
    proc = serve("--port", "0")
    page: http.client.HTTPConnection | None = None
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("http://127.0.0.1:") and "/?token=" in first, first
        base, token = first.split("/?token=")
        assert len(token) >= 24
        with urllib.request.urlopen(base + "/api/discussions", timeout=10) as reply:
            rows = json.load(reply)
        assert [r["title"] for r in rows] == ["Auth"]
        request = urllib.request.Request(
            base + "/api/discussions/auth.md/comments",
            data=json.dumps({"author": "Rob", "text": "From the web."}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert reply.status == 201
        assert "From the web." in (isolated / "discussions" / "auth.md").read_text()
        # An open page (an event stream) does not hold the server up when it is stopped.
        port = int(base.rsplit(":", 1)[1])
        page = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        page.request("GET", "/api/discussions/auth.md/events")
        stream = page.getresponse()
        assert stream.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)  # not held up by the open page
        if page is not None:
            page.close()
    assert proc.returncode in (0, 143), err
    assert "Traceback" not in err


def test_a_busy_port_is_a_clear_error(isolated: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = serve("--port", str(port))
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert f"port {port} is in use" in err and "--port" in err
    assert "Traceback" not in err and out == ""


def test_without_the_web_extra_serve_says_what_to_install(isolated: Path) -> None:
    program = (
        "import sys; sys.modules['uvicorn'] = None; sys.argv = ['discussions', 'serve']; "
        "from discussions.cli import main; main()"
    )
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "pip install 'discussions[web]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_serve_loads_no_websocket_protocol_an_upgrade_is_answered_as_plain_http(
    isolated: Path,
) -> None:
    """The pages use server-sent events, never a websocket: the server does not load a
    websocket implementation before its first request (a request asking to upgrade is
    answered as the plain request it also is)."""
    assert code(run("new", "Auth")) == 0
    proc = serve("--port", "0")
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().strip().split("/?token=")[0]
        conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=10)
        upgrade = {
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version": "13",
        }
        conn.request("GET", "/api/discussions", headers=upgrade)
        reply = conn.getresponse()
        assert reply.status == 200
        assert [r["title"] for r in json.loads(reply.read())] == ["Auth"]
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
    # Nothing on the console but the server's own line (no advice to install a library).
    assert [line for line in err.splitlines() if not line.startswith("Serving ")] == []
