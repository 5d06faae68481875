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

The kernel's hash spread `make soak`'s 64 keep-alive clients 38:26, 27:39, 36:30 over two
workers, and the worker with more clients answered each of them that much later (its replies
1.2-1.5x the other's on average): once a worker listens, it attaches to the port's sockets a
small eBPF program (`SO_ATTACH_REUSEPORT_EBPF`) that hands new connections to the listening
sockets in turn, round robin (32:32). Where the kernel refuses it (not Linux, no permission
for `bpf(2)`) the hash stays, and the worker logs why.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import socket
import struct
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uvicorn import Config

log = logging.getLogger("uvicorn.error")


def balanced_listeners() -> bool:
    """Whether the kernel balances connections over sockets sharing a port (Linux)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


class ReusePortSocket(socket.socket):
    """A socket bound with SO_REUSEPORT that a worker receives as a new socket of its own,
    which spreads the port's connections over `workers` sockets in turn once it listens."""

    workers = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return (_bound, (self.family, self.getsockname(), self.workers))


def _bound(family: int, address: Any, workers: int = 0) -> ReusePortSocket:
    """A new socket bound to address with SO_REUSEPORT (not listening yet); with workers, a
    worker's, which attaches the round robin over that many sockets once it listens."""
    sock = ReusePortSocket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    sock.workers = workers
    if workers > 1:
        threading.Thread(
            target=_spread_once_listening, args=(sock, workers), name="lexgate-listener",
            daemon=True,
        ).start()  # fmt: skip
    return sock


# --- Round robin over the port's sockets: an eBPF program of the socket-filter type ----------

SO_ATTACH_REUSEPORT_EBPF = 52
_SYS_BPF = {"x86_64": 321, "aarch64": 280}
_BPF_MAP_CREATE, _BPF_PROG_LOAD = 0, 5
_BPF_MAP_TYPE_ARRAY, _BPF_PROG_TYPE_SOCKET_FILTER = 2, 1
LISTEN_POLL_S = 0.005
"""How often a worker's socket is looked at until it listens (uvicorn listens on it once the
worker has started; only then can the program join the port's group of sockets)."""


def _bpf(command: int, attributes: bytes) -> int:
    """bpf(2); the descriptor it returns. OSError when refused."""
    libc = ctypes.CDLL(None, use_errno=True)
    number = _SYS_BPF.get(os.uname().machine)
    if number is None:
        raise OSError(errno.ENOSYS, f"bpf(2) on {os.uname().machine} not known here")
    buffer = ctypes.create_string_buffer(attributes, 128)
    descriptor = int(libc.syscall(number, command, buffer, 128))
    if descriptor < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return descriptor


def _insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)


def round_robin_program(sockets: int) -> int:
    """A loaded eBPF program that answers 0, 1, ..., sockets - 1, 0, ... (a counter in a
    one-slot array map, added to atomically): the index of the listening socket that takes
    the next connection. OSError when the kernel refuses it."""
    counter = _bpf(_BPF_MAP_CREATE, struct.pack("<IIII", _BPF_MAP_TYPE_ARRAY, 4, 4, 1))
    try:
        code = b"".join([
            _insn(0x62, 10, 0, -4, 0),  # *(u32 *)(r10 - 4) = 0: the key
            _insn(0xBF, 2, 10),  # r2 = r10
            _insn(0x07, 2, 0, 0, -4),  # r2 += -4
            _insn(0x18, 1, 1, 0, counter), _insn(0),  # r1 = the map (a 16-byte load)
            _insn(0x85, 0, 0, 0, 1),  # r0 = bpf_map_lookup_elem(r1, r2)
            _insn(0x15, 0, 0, 5, 0),  # if r0 == 0: to the last two
            _insn(0xB7, 1, 0, 0, 1),  # r1 = 1
            _insn(0xC3, 0, 1, 0, 0),  # lock *(u32 *)(r0 + 0) += r1
            _insn(0x61, 0, 0, 0, 0),  # r0 = *(u32 *)(r0 + 0)
            _insn(0x94, 0, 0, 0, sockets),  # w0 %= sockets
            _insn(0x95),  # return r0
            _insn(0xB7, 0, 0, 0, 0),  # r0 = 0
            _insn(0x95),  # return r0
        ])  # fmt: skip
        instructions = ctypes.create_string_buffer(code, len(code))
        licence = ctypes.create_string_buffer(b"GPL")
        return _bpf(
            _BPF_PROG_LOAD,
            struct.pack(
                "<IIQQ",
                _BPF_PROG_TYPE_SOCKET_FILTER,
                len(code) // 8,
                ctypes.addressof(instructions),
                ctypes.addressof(licence),
            ),
        )
    finally:
        os.close(counter)  # the program holds the map


def spread_round_robin(sock: socket.socket, sockets: int) -> None:
    """New connections to sock's port handed to its group's listening sockets in turn (sock
    must listen: the program is the group's). OSError when the kernel refuses."""
    program = round_robin_program(sockets)
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, program)
    finally:
        os.close(program)  # the socket's group holds the program


def _spread_once_listening(sock: ReusePortSocket, workers: int) -> None:
    """Wait until sock listens (or is closed), then attach the round robin."""
    while sock.fileno() != -1:
        try:
            if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                spread_round_robin(sock, workers)
                return
        except OSError as error:
            log.info("connections spread by the kernel's hash, not in turn: %s", error)
            return
        time.sleep(LISTEN_POLL_S)


def bind_port(config: Config) -> ReusePortSocket:
    """The parent's socket on config's host and port. OSError (EADDRINUSE) when anything
    listens there already, another LexGate server too: a plain bind is tried first, since
    sockets that all set SO_REUSEPORT would share the port without a word."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((config.host, config.port))
    sock = _bound(family, (config.host, config.port))
    sock.workers = config.workers  # each worker's socket spreads over this many
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


__all__ = [
    "ReusePortSocket",
    "balanced_listeners",
    "bind_port",
    "round_robin_program",
    "run_workers",
    "spread_round_robin",
]
