"""`lexgate serve --workers 2` on Linux: each worker listens on its own socket (SO_REUSEPORT),
the kernel spreads keep-alive connections over them, and the port stays exclusive."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.soak import listening_sockets, serve
from web.listeners import balanced_listeners, round_robin_program, spread_round_robin

pytestmark = pytest.mark.skipif(not balanced_listeners(), reason="SO_REUSEPORT balancing: Linux")

CONNECTIONS = 64
ESTABLISHED = "01"


def _children(pid: int) -> list[int]:
    """The processes whose parent is pid."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets process pid holds open."""
    inodes = set()
    for descriptor in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(descriptor)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def _get_healthz(sock: socket.socket) -> bytes:
    """One keep-alive GET /api/v1/healthz on sock; the reply's status line."""
    sock.sendall(b"GET /api/v1/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    reply = b""
    while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
        data = sock.recv(65536)
        if not data:
            break
        reply += data
    return reply.split(b"\r\n", 1)[0]


def test_each_worker_listens_on_its_own_socket(live_database_url: str, tmp_path: Path) -> None:
    """Two listening sockets on the port, one per worker; 64 keep-alive connections are
    spread over both workers: 32:32 where the workers' round robin is allowed, else each
    holds at least a quarter (the hash of the client's port decides, so 54:10 as with one
    shared socket is all but impossible)."""
    with serve(live_database_url, tmp_path, workers=2) as server:
        port = int(server.url.rsplit(":", 1)[1])
        listening = set(listening_sockets(port))
        held = {pid: _socket_inodes(pid) & listening for pid in _children(server.process.pid)}
        workers = [pid for pid, inodes in held.items() if inodes]  # not multiprocessing's own
        assert len(listening) == 2
        assert sorted(len(held[pid]) for pid in workers) == [1, 1], held
        assert not _socket_inodes(server.process.pid) & listening  # the parent never listens

        connections = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in
                       range(CONNECTIONS)]  # fmt: skip
        try:
            assert {_get_healthz(sock) for sock in connections} == {b"HTTP/1.1 200 OK"}
            established = set(listening_sockets(port, ESTABLISHED))
            shares = sorted(len(_socket_inodes(pid) & established) for pid in workers)
        finally:
            for sock in connections:
                sock.close()
    assert sum(shares) == CONNECTIONS
    if _round_robin_allowed():  # the workers hand connections to their sockets in turn
        assert shares == [CONNECTIONS // 2, CONNECTIONS // 2], shares
    else:  # the kernel's hash of the clients' ports
        assert len(shares) == 2 and shares[0] >= CONNECTIONS // 4, shares


def _round_robin_allowed() -> bool:
    """Whether this kernel loads the workers' round-robin program for this user."""
    try:
        os.close(round_robin_program(2))
    except OSError:
        return False
    return True


def test_the_round_robin_takes_the_sockets_in_turn() -> None:
    """The program attached to a port's listening sockets hands them new connections in turn,
    whichever source ports the clients have."""
    if not _round_robin_allowed():
        pytest.skip("bpf(2) refused here: the kernel's hash spreads the connections")
    listeners: list[socket.socket] = []
    try:
        for _ in range(3):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(("127.0.0.1", listeners[0].getsockname()[1] if listeners else 0))
            sock.listen(64)
            sock.setblocking(False)
            listeners.append(sock)
        spread_round_robin(listeners[1], 3)
        port = listeners[0].getsockname()[1]
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(30)]
        accepted = []
        for sock in listeners:
            count = 0
            while True:
                try:
                    sock.accept()[0].close()
                except BlockingIOError:
                    break
                count += 1
            accepted.append(count)
        for client in clients:
            client.close()
    finally:
        for sock in listeners:
            sock.close()
    assert accepted == [10, 10, 10]


def test_a_second_server_on_the_port_is_refused(live_database_url: str, tmp_path: Path) -> None:
    """Workers that all set SO_REUSEPORT could share a port without a word: a second
    `lexgate serve` on a port in use stops at once, saying so."""
    with serve(live_database_url, tmp_path, workers=2) as server:
        port = server.url.rsplit(":", 1)[1]
        second = subprocess.run(
            [str(Path(sys.executable).parent / "lexgate"), "serve", "--port", port,
             "--workers", "2"],
            env={**os.environ, "LEXGATE_DATABASE_URL": live_database_url},
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
    assert second.returncode == 3, second.stdout + second.stderr  # uvicorn's start-up failure
    assert "address already in use" in second.stdout + second.stderr
