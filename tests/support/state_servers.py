"""Real Redis and PostgreSQL servers for tests, on temporary folders and free loopback ports.

Started from Debian's ``redis-server`` and ``/usr/lib/postgresql/*/bin``; PostgreSQL refuses
to run as root, so as root it runs as ``nobody``. Tests that need a server are skipped with
the reason when the binaries are absent (``.ci/run`` installs them).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

START_DEADLINE_SECONDS = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} while starting")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.02)  # polling a port with a deadline, not waiting for time to pass
    raise RuntimeError(f"{what} did not listen on port {port} within {START_DEADLINE_SECONDS}s")


class RedisServer:
    """``redis-server`` on 127.0.0.1:<free port> and on a Unix socket, no persistence (or,
    ``appendonly``, an append-only file as deployed); can be stopped and restarted on the
    same port."""

    def __init__(self, *, appendonly: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.appendonly = appendonly
        self.folder = Path(tempfile.mkdtemp(prefix="spyglass-redis-"))
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def unix_url(self) -> str:
        """The same server through its Unix socket, as a server on the same computer is best
        reached."""
        return f"unix://{self.folder / 'redis.sock'}?db=0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if self.appendonly else "no",
                "--dir",
                str(self.folder),
                "--protected-mode",
                "no",
                "--unixsocket",
                str(self.folder / "redis.sock"),
                "--unixsocketperm",
                "700",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process, "redis-server")

    def stop(self, *, graceful: bool = False) -> None:
        """Kill the server; ``graceful``, stop it as a service manager does (SIGTERM: an
        append-only file is flushed first)."""
        if self.process is not None:
            if graceful:
                self.process.terminate()
            else:
                self.process.kill()
            self.process.wait(10)
            self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    """A throw-away PostgreSQL cluster on 127.0.0.1:<free port> with trust authentication."""

    def __init__(self) -> None:
        folder = postgres_bin()
        if folder is None:
            pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = folder
        self.root = Path(tempfile.mkdtemp(prefix="spyglass-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            # PostgreSQL will not run as root: hand the folder to an unprivileged user.
            self.user = "nobody"
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "spyglass",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ]
        )
        #: The server's own log (errors, and statements where a test turns that on).
        self.log = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def _command(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", self.user, "--", *argv] if self.user else argv

    def _run(self, argv: list[str]) -> None:
        subprocess.run(
            self._command(argv),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=START_DEADLINE_SECONDS,
        )

    def start(self) -> None:
        with self.log.open("ab") as log:  # the child keeps its own copy
            self.process = subprocess.Popen(
                self._command(
                    [
                        str(self.bin / "postgres"),
                        "-D",
                        str(self.data),
                        "-p",
                        str(self.port),
                        "-h",
                        "127.0.0.1",
                        "-k",
                        str(self.root),
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=off",
                        "-c",
                        "full_page_writes=off",
                    ]
                ),
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        wait_for_port(self.port, self.process, "postgres")
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while True:  # the port opens a moment before connections are accepted
            probe = subprocess.run(
                [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            if probe.returncode == 0 or time.monotonic() > deadline:
                return
            time.sleep(0.02)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://spyglass@127.0.0.1:{self.port}/{database}"

    def unix_url(self, url: str) -> str:
        """``url`` (one of this server's) through the server's Unix socket instead."""
        database = url.rsplit("/", 1)[1]
        return f"postgresql://spyglass@/{database}?host={self.root}&port={self.port}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url(name)

    def stop(self) -> None:
        """A fast shutdown that waits until the server has gone, so it can start again."""
        if self.process is not None:
            self._run([str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast", "-w"])
            self.process.wait(START_DEADLINE_SECONDS)
            self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    server = PostgresServer()
    yield server
    server.close()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """A Redis emptied for this test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url


@pytest.fixture
def database_url(postgres_server: PostgresServer) -> str:
    """A fresh PostgreSQL database for this test."""
    return postgres_server.new_database()


def other_clients(database_url: str) -> list[tuple[int, Any]]:
    """The server process and the client's address of every other connection to this
    database (the address is ``None`` for a connection through the Unix socket)."""
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url, autocommit=True) as admin:
        rows = admin.execute(
            b"SELECT pid, client_addr FROM pg_stat_activity WHERE datname = %s "
            b"AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return [(pid, address) for pid, address in rows]


def client_backends(database_url: str) -> list[int]:
    """The server processes of every other connection to this database."""
    return [pid for pid, _ in other_clients(database_url)]
