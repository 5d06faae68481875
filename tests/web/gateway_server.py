"""The gateway app served by a real uvicorn on loopback, in a thread of the test process.

The official `openai` client talks to it over real sockets (it has its own HTTP stack, so an
in-process transport is not an option), and the gateway talks to the loopback chat server of
tests/llm_server.py as its upstream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from lexgate.settings import Settings
from tests.web.conftest import free_port
from web.gateway import create_gateway_app


@contextmanager
def gateway_running(settings: Settings) -> Iterator[str]:
    """The gateway over `settings` on 127.0.0.1:<free port>; its base URL (…/v1)."""
    port = free_port()
    config = uvicorn.Config(
        create_gateway_app(settings), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the gateway did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
