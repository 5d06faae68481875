"""A listening socket of its own for each worker of `lexgate serve` (Linux, SO_REUSEPORT).

uvicorn's workers share the parent's one listening socket, and whichever worker is waiting in
`accept` takes a new connection: a burst of keep-alive clients mostly lands on the worker that
was idle first (54 of 64 connections on one of two workers in `make soak`), and its clients
queue behind each other while the other worker has little to do. With a socket per worker,
all bound to the port with SO_REUSEPORT, the kernel spreads new connections over the workers'
sockets by a hash of the client's address and port.

The parent binds the port (so that a port in use is an error at once) but never listens on its
socket: what it hands to each worker it starts, and to each replacement of a worker that died,
is unpickled there as a new socket bound to the same address (`ReusePortSocket.__reduce__`),
on which that worker listens. A worker that dies takes its socket with it; new connections go
to the others until its replacement listens.
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uvicorn import Config

log = logging.getLogger("uvicorn.error")


def balanced_listeners() -> bool:
    """Whether the kernel balances connections over sockets sharing a port (Linux)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


class ReusePortSocket(socket.socket):
    """A socket bound with SO_REUSEPORT that a worker receives as a new socket of its own."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (_bound, (self.family, self.getsockname()))


def _bound(family: int, address: Any) -> ReusePortSocket:
    """A new socket bound to address with SO_REUSEPORT (not listening yet)."""
    sock = ReusePortSocket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    return sock


def bind_port(config: Config) -> ReusePortSocket:
    """The parent's socket on config's host and port. OSError (EADDRINUSE) when anything
    listens there already, another LexGate server too: a plain bind is tried first, since
    sockets that all set SO_REUSEPORT would share the port without a word."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((config.host, config.port))
    sock = _bound(family, (config.host, config.port))
    shown = f"[{config.host}]" if family == socket.AF_INET6 else config.host
    log.info(
        "Uvicorn running on http://%s:%d (Press CTRL+C to quit); each worker listens on a "
        "socket of its own (SO_REUSEPORT)",
        shown,
        sock.getsockname()[1],
    )
    return sock


def run_workers(config: Config) -> None:
    """uvicorn's supervisor over config.workers processes, each listening on its own socket;
    exits with uvicorn's start-up failure status when the port cannot be bound."""
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess

    try:
        sock = bind_port(config)
    except OSError as error:
        reason = "address already in use" if error.errno == errno.EADDRINUSE else str(error)
        log.error("cannot listen on %s:%d: %s", config.host, config.port, reason)
        sys.exit(STARTUP_FAILURE)
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


__all__ = ["ReusePortSocket", "balanced_listeners", "bind_port", "run_workers"]
