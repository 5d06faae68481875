"""uvicorn's log lines for `lexgate serve` and `lexgate gateway`: the access lines written a
batch at a time, the same text in the same order.

uvicorn writes one access line per request with a `StreamHandler`, which writes and flushes
each line at once: a system call per request on the event loop, which lets go of the
interpreter's lock there, and a worker's writer thread then holds the loop up to a switch
interval (5 ms) before it gets the lock back. `BatchedStreamHandler` writes a line at once
only when it wrote none in the last `FLUSH_INTERVAL_S` (an idle server's lines come as they
did); a line that comes sooner is kept and written with the others that come meanwhile, by a
thread of its own at most `FLUSH_INTERVAL_S` later, at once when `FLUSH_BYTES` are waiting,
and when logging shuts down. The other lines (uvicorn's start-up, errors, warnings) go
through `OrderedStreamHandler`, which writes the access lines waiting before its own: where
both go to the same file, the lines keep their order. `PlainAccessFormatter` makes uvicorn's
plain access line (no colours) without copying each record twice.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
import weakref
from typing import Any, TextIO

from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter

FLUSH_INTERVAL_S = 0.2
"""The longest an access line waits to be written (a server killed outright loses as much),
and how long after a write a line is kept rather than written at once."""
FLUSH_BYTES = 16384
"""Access lines waiting that are written at once, whatever the interval."""

_batched: weakref.WeakSet[BatchedStreamHandler] = weakref.WeakSet()


class BatchedStreamHandler(logging.StreamHandler[TextIO]):
    """A `StreamHandler` writing its lines a batch at a time (see the module's docstring):
    the same text, one write and one flush per batch."""

    def __init__(
        self,
        stream: TextIO | None = None,
        interval_s: float = FLUSH_INTERVAL_S,
        capacity: int = FLUSH_BYTES,
    ) -> None:
        super().__init__(stream)
        self.interval_s = interval_s
        self.capacity = capacity
        self._waiting: list[str] = []
        self._waiting_chars = 0
        self._written_at = -interval_s
        self._due = threading.Event()
        self._closed = False
        _batched.add(self)
        threading.Thread(
            target=_flush_when_due, args=(weakref.ref(self),), name="lexgate-access-log",
            daemon=True,
        ).start()  # fmt: skip

    def emit(self, record: logging.LogRecord) -> None:
        """Write record's line at once after an interval without a write, else keep it (called
        under the handler's lock): the batch is written once it holds `capacity` characters,
        or by the thread after the interval."""
        try:
            line = self.format(record) + self.terminator
        except Exception:  # as StreamHandler: the record's own error, reported, not raised
            self.handleError(record)
            return
        self._waiting.append(line)
        self._waiting_chars += len(line)
        first = len(self._waiting) == 1
        if self._waiting_chars >= self.capacity or (
            first and time.monotonic() - self._written_at >= self.interval_s
        ):
            self._write_waiting()
        elif first:
            self._due.set()

    def flush(self) -> None:
        """Write the lines waiting, then flush the stream."""
        self.acquire()
        try:
            self._write_waiting()
            super().flush()
        finally:
            self.release()

    def close(self) -> None:
        """Write what waits; the thread stops."""
        self.acquire()
        try:
            self._write_waiting()
            self._closed = True
        finally:
            self.release()
        self._due.set()
        super().close()

    def _write_waiting(self) -> None:
        if not self._waiting:
            return
        text = "".join(self._waiting)
        self._waiting.clear()
        self._waiting_chars = 0
        self._written_at = time.monotonic()
        try:
            self.stream.write(text)
            self.stream.flush()
        except Exception:  # a closed or broken stream: reported as logging reports it
            self.handleError(logging.makeLogRecord({"msg": text.rstrip("\n")}))


def _flush_when_due(handler_ref: weakref.ref[BatchedStreamHandler]) -> None:
    """The handler's thread: after the first line of a batch, wait the interval and write the
    batch; stop when the handler is closed or gone."""
    handler = handler_ref()
    while handler is not None and not handler._closed:
        due, interval_s = handler._due, handler.interval_s
        del handler  # the thread must not keep the handler alive
        due.wait()
        time.sleep(interval_s)
        due.clear()
        handler = handler_ref()
        if handler is not None:
            handler.flush()


def flush_access_lines() -> None:
    """Write every access line waiting in this process."""
    for handler in list(_batched):
        handler.flush()


class OrderedStreamHandler(logging.StreamHandler[TextIO]):
    """A `StreamHandler` that writes the access lines waiting before each of its own lines."""

    def emit(self, record: logging.LogRecord) -> None:
        flush_access_lines()
        super().emit(record)


ACCESS_FORMAT: str = LOGGING_CONFIG["formatters"]["access"]["fmt"]


class PlainAccessFormatter(AccessFormatter):
    """uvicorn's `AccessFormatter`, the same text: with its own format and no colours the line
    is made at once (uvicorn copies each record twice to add its fields); anything else is
    left to uvicorn's formatter."""

    def format(self, record: logging.LogRecord) -> str:
        args = record.args
        if (
            self.use_colors
            or self._fmt != ACCESS_FORMAT
            or record.exc_info
            or record.exc_text
            or record.stack_info
            or not isinstance(args, tuple)
            or len(args) != 5
        ):
            return super().format(record)
        client_addr, method, full_path, http_version, status_code = args
        level = record.levelname
        return (
            f"{level}:{' ' * (8 - len(level))} {client_addr} - "
            f'"{method} {full_path} HTTP/{http_version}" '
            f"{self.get_status_code(int(status_code))}"  # type: ignore[call-overload]
        )


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration (`uvicorn.config.LOGGING_CONFIG`: the same formats and
    streams) with the access lines made at once, batched, and the other lines ordered after
    them."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["access"]["()"] = f"{__name__}.PlainAccessFormatter"
    config["handlers"]["default"]["class"] = f"{__name__}.OrderedStreamHandler"
    config["handlers"]["access"]["class"] = f"{__name__}.BatchedStreamHandler"
    return config
