"""``spyglass serve`` as a real subprocess, for tests with several processes sharing state."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import httpx

START_DEADLINE_SECONDS = 60
_API = re.compile(r"API: (http://127\.0\.0\.1:\d+)/api/v1")


class ServeProcess:
    """One ``python -m spyglass serve --port 0`` with its own home and the given settings."""

    def __init__(
        self,
        home: Path,
        env: dict[str, str],
        *,
        api_token: str,
        workers: int = 1,
        runner: Sequence[str] = ("-m",),
        src: Path | None = None,
    ) -> None:
        """``runner`` comes between the interpreter and ``spyglass`` (``("-m", "cProfile",
        "-o", path, "-m")`` profiles the process); ``src``, the source tree to run (by
        default this checkout's)."""
        home.mkdir(parents=True, exist_ok=True)
        token_file = home / "api-token"
        token_file.write_text(api_token + "\n", encoding="utf-8")
        token_file.chmod(0o600)
        environment = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("SPYGLASS_") or k == "SPYGLASS_TEST_SEARXNG_PYTHON"
        }
        environment.update(env)
        environment["SPYGLASS_HOME"] = str(home)
        source = str(src or Path(__file__).resolve().parents[2] / "src")
        environment["PYTHONPATH"] = source + os.pathsep + environment.get("PYTHONPATH", "")
        argv = [sys.executable, *runner, "spyglass", "serve", "--port", "0"]
        if workers > 1:
            argv += ["--workers", str(workers)]
        self.token = api_token
        self.stderr: list[str] = []
        self.process = subprocess.Popen(
            argv,
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self._found = threading.Event()
        self.base_url = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._found.wait(START_DEADLINE_SECONDS):
            self.kill()
            raise RuntimeError("spyglass serve did not start:\n" + "".join(self.stderr))
        self._wait_healthy()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            match = _API.search(line)
            if match and not self._found.is_set():
                self.base_url = match.group(1)
                self._found.set()
        self._found.set()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("spyglass serve exited:\n" + "".join(self.stderr))
            try:
                if httpx.get(f"{self.base_url}/api/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)  # polling readiness with a deadline
        raise RuntimeError("spyglass serve never became healthy:\n" + "".join(self.stderr))

    def client(self, **options: object) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=30,
            trust_env=False,
            **options,  # type: ignore[arg-type]
        )

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean-up runs."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._reader.join(10)
        if self.process.stderr is not None:
            self.process.stderr.close()

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
