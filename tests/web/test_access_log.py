"""uvicorn's log lines as `lexgate serve` configures them: the access lines written a batch at
a time, the same text and order as uvicorn's own configuration writes."""

from __future__ import annotations

import io
import logging
import logging.config
import time
from collections.abc import Iterator

import pytest
from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter

from web.access_log import (
    BatchedStreamHandler,
    PlainAccessFormatter,
    flush_access_lines,
    log_config,
)

ACCESS = ('%s - "%s %s HTTP/%s" %d', "127.0.0.1:50312", "POST", "/api/v1/gate", "1.1", 200)
ACCESS_FORMAT = LOGGING_CONFIG["formatters"]["access"]["fmt"]
WAIT_S = 30  # a generous bound for the thread's write, not a timing assertion


def _record(
    status: int = 200,
    path: str = "/api/v1/gate",
    client: str = "127.0.0.1:50312",
    level: int = logging.INFO,
    method: str = "POST",
) -> logging.LogRecord:
    return logging.makeLogRecord(
        {
            "name": "uvicorn.access",
            "levelno": level,
            "levelname": logging.getLevelName(level),
            "msg": ACCESS[0],
            "args": (client, method, path, "1.1", status),
        }
    )


RECORDS = {
    "ok": _record(),
    "not found, query": _record(404, "/x?a=1&b=%20"),
    "unknown status": _record(299, "/odd"),
    "server error": _record(500, "/"),
    "no client": _record(200, "/api/v1/healthz", client=""),
    "ipv6, unicode path": _record(201, "/laws/民法典", client="[::1]:8000"),
    "warning level": _record(503, level=logging.WARNING, method="GET"),
}


def _handler(
    stream: io.StringIO, interval_s: float, capacity: int = 1 << 20
) -> BatchedStreamHandler:
    handler = BatchedStreamHandler(stream, interval_s=interval_s, capacity=capacity)
    handler.setFormatter(PlainAccessFormatter(ACCESS_FORMAT))
    return handler


def _wait_for(stream: io.StringIO, lines: int) -> str:
    deadline = time.monotonic() + WAIT_S
    while stream.getvalue().count("\n") < lines and time.monotonic() < deadline:
        time.sleep(0.01)
    return stream.getvalue()


@pytest.fixture
def streams(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """stdout and stderr as uvicorn's loggers see them under `log_config()`; the loggers'
    configuration restored after."""
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    loggers = {
        name: logging.getLogger(name) for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
    }
    saved = {name: (lg.handlers[:], lg.level, lg.propagate) for name, lg in loggers.items()}
    logging.config.dictConfig(log_config())
    yield out, err
    for name, lg in loggers.items():
        for handler in lg.handlers:
            if handler not in saved[name][0]:
                handler.close()
        lg.handlers, lg.level, lg.propagate = saved[name]


@pytest.mark.parametrize("use_colors", [False, True], ids=["plain", "colours"])
@pytest.mark.parametrize("record", list(RECORDS.values()), ids=list(RECORDS))
def test_the_formatter_writes_uvicorns_line(record: logging.LogRecord, use_colors: bool) -> None:
    """PlainAccessFormatter's line is uvicorn's AccessFormatter's, character for character."""
    ours = PlainAccessFormatter(ACCESS_FORMAT, use_colors=use_colors)
    assert ours.format(record) == AccessFormatter(ACCESS_FORMAT, use_colors=use_colors).format(
        record
    )


def test_the_lines_are_uvicorns_text() -> None:
    """The access lines are the text uvicorn's StreamHandler writes, in order, once flushed."""
    plain, batched = io.StringIO(), io.StringIO()
    reference = logging.StreamHandler(plain)
    reference.setFormatter(AccessFormatter(ACCESS_FORMAT))
    handler = _handler(batched, interval_s=3600)
    records = list(RECORDS.values())
    try:
        for record in records:
            reference.handle(record)
            handler.handle(record)
        assert batched.getvalue().count("\n") == 1  # the first at once, the rest kept
        handler.flush()
        assert batched.getvalue() == plain.getvalue()
    finally:
        handler.close()


def test_kept_lines_are_written_by_the_thread() -> None:
    """Lines kept after a write are written after the interval without another line or a
    flush."""
    stream = io.StringIO()
    handler = _handler(stream, interval_s=0.05)
    try:
        for _ in range(5):
            handler.handle(_record())
        assert _wait_for(stream, 5).count("\n") == 5
    finally:
        handler.close()


def test_a_full_batch_is_written_at_once() -> None:
    """Once `capacity` characters wait, they are written in the emitting thread."""
    stream = io.StringIO()
    line = len('INFO:     127.0.0.1:50312 - "POST /api/v1/gate HTTP/1.1" 200 OK\n')
    handler = _handler(stream, interval_s=3600, capacity=2 * line + 1)
    try:
        written = []
        for _ in range(4):
            handler.handle(_record())
            written.append(stream.getvalue().count("\n"))
        assert written == [1, 1, 1, 4]  # the first at once, then kept until 3 lines wait
    finally:
        handler.close()


def test_close_writes_what_waits() -> None:
    """Closing the handler (logging's shutdown at exit) writes the lines kept."""
    stream = io.StringIO()
    handler = _handler(stream, interval_s=3600)
    for _ in range(3):
        handler.handle(_record())
    handler.close()
    assert stream.getvalue().count("\n") == 3


def test_other_lines_come_after_the_access_lines_waiting(
    streams: tuple[io.StringIO, io.StringIO],
) -> None:
    """uvicorn's other lines (stderr) are written after the access lines logged before them:
    into one file, the lines keep their order."""
    out, err = streams
    access, error = logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")
    access.info(*ACCESS)
    access.info(*ACCESS)
    assert out.getvalue().count("\n") == 1  # the second kept
    error.warning("something went wrong")
    assert out.getvalue().count("\n") == 2
    assert err.getvalue() == "WARNING:  something went wrong\n"
    flush_access_lines()
    assert out.getvalue() == 2 * 'INFO:     127.0.0.1:50312 - "POST /api/v1/gate HTTP/1.1" 200 OK\n'
