"""The deployment assets in deploy/: what can be checked without containers or systemd."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
#: Where the units expect the installed programs; absent on a test machine, and said so.
INSTALLED = re.compile(r"Command /opt/(spyglass|searxng)/bin/\S+ is not executable")


@pytest.mark.searxng
def test_the_searxng_settings_load_in_the_real_searxng_with_json_on_and_limiter_off() -> None:
    python = os.environ.get("SPYGLASS_TEST_SEARXNG_PYTHON")
    if not python:
        pytest.skip("SPYGLASS_TEST_SEARXNG_PYTHON is not set (the SearXNG peer's virtualenv)")
    script = (
        "import json; from searx import settings as s; print(json.dumps({"
        "'limiter': s['server']['limiter'], 'image_proxy': s['server']['image_proxy'], "
        "'formats': s['search']['formats'], 'engines': len(s['engines'])}))"
    )
    environ = {**os.environ, "SEARXNG_SETTINGS_PATH": str(DEPLOY / "searxng" / "settings.yml")}
    done = subprocess.run(
        [python, "-c", script], env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["limiter"] is False and loaded["image_proxy"] is False
    assert "json" in loaded["formats"]
    assert loaded["engines"] > 0  # the defaults were merged in


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here")
    # A template is verified through an instance, named for the port it serves.
    units = []
    for unit in sorted((DEPLOY / "systemd").glob("*.service")):
        name = unit.name.replace("@.service", "@8092.service")
        target = tmp_path / name
        target.write_text(unit.read_text())
        units.append(str(target))
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *units],
        capture_output=True,
        text=True,
        timeout=120,
    )
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and not INSTALLED.search(line)
    ]
    assert problems == []
    assert len(units) == 2


def test_the_compose_file_runs_two_spyglass_processes_on_shared_state_behind_a_proxy() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"spyglass-1", "spyglass-2", "redis", "postgres", "searxng", "caddy"} <= set(services)
    for name in ("spyglass-1", "spyglass-2"):
        environment = services[name]["environment"]
        assert environment["SPYGLASS_STATE__BACKEND"] == "shared"
        assert environment["SPYGLASS_SEARCH__SEARXNG__BASE_URL"] == "http://searxng:8080"
    # Only the proxy is published, and only on loopback.
    published = {name: s.get("ports", []) for name, s in services.items() if s.get("ports")}
    assert published == {"caddy": ["127.0.0.1:8080:80"]}
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    assert "spyglass-1:8092 spyglass-2:8092" in caddyfile
    assert "health_uri /api/v1/health" in caddyfile


def test_the_image_installs_the_openmp_runtime_that_lightgbm_links() -> None:
    # python:3.12-slim has no libgomp; LightGBM's library cannot load without it.
    lines = (DEPLOY / "Dockerfile").read_text().splitlines()
    instructions = " ".join(line for line in lines if not line.lstrip().startswith("#"))
    installs = re.findall(r"apt-get install ([^&]*)", instructions.replace("\\", " "))
    assert any("libgomp1" in packages.split() for packages in installs), installs
