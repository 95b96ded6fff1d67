"""State folders are private: created 0700, and tightened when a runtime starts."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from spyglass.core.audit import AuditLog
from spyglass.core.policy import WEB_ACCESS, PolicyFile
from spyglass.paths import Paths, make_private_dir
from spyglass.runtime import build_runtime
from spyglass.service.auth import load_or_create_token


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_folder_and_its_missing_parents_are_created_0700_whatever_the_umask(
    tmp_path: Path,
) -> None:
    old = os.umask(0o002)
    try:
        folder = make_private_dir(tmp_path / "home" / "audit")
    finally:
        os.umask(old)
    assert mode(folder) == 0o700
    assert mode(folder.parent) == 0o700


def test_every_state_folder_spyglass_writes_is_created_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        paths = Paths(tmp_path / "home")
        PolicyFile(paths.policy_file).set(WEB_ACCESS, True)
        AuditLog(paths.audit_file).record({"event_id": "x"})
        load_or_create_token(paths.api_token_file)
    finally:
        os.umask(old)
    for folder in paths.folders:
        assert mode(folder) == 0o700, folder


async def test_a_fresh_home_first_written_by_the_state_store_is_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        paths = Paths(tmp_path / "home")
        runtime = build_runtime(paths)
        await runtime.stores.login_codes.issue()
        await runtime.stores.aclose()
    finally:
        os.umask(old)
    assert mode(paths.home) == 0o700


def test_existing_world_readable_folders_are_tightened_at_start(tmp_path: Path) -> None:
    paths = Paths(tmp_path / "home")
    for folder in paths.folders:
        folder.mkdir(exist_ok=True)
        folder.chmod(0o755)
    (paths.home / "config.toml").write_text("")
    build_runtime(paths)
    for folder in paths.folders:
        assert mode(folder) == 0o700, folder


def test_tightening_creates_nothing(tmp_path: Path) -> None:
    paths = Paths(tmp_path / "absent")
    paths.tighten()
    assert not paths.home.exists()
