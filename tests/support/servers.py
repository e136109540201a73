"""HTTP servers on loopback for the tests: the standard library's, in a thread, on a free port."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietServer(ThreadingHTTPServer):
    """A client that gives up on a call closes its connection (the engine does so on purpose):
    no traceback of that on stderr, where a test reading a command's output would see it."""

    daemon_threads = True
    request_queue_size = 128  # the listen backlog: a trial opens dozens of calls at once, and
    # the standard library's 5 let a connection go unanswered on a busy machine

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@contextmanager
def serving(
    handler: type[BaseHTTPRequestHandler], before_shutdown: Callable[[], None] = lambda: None
) -> Iterator[QuietServer]:
    """Serve with `handler` on 127.0.0.1 (a free port: `server_address[1]`) until the block
    ends; `before_shutdown` releases the handlers still at work (a hanging answer)."""
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        before_shutdown()
        server.shutdown()
        server.server_close()
        thread.join(5)
