"""The executor harness every core test module can ask for, web access on."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.core.policy import WEB_ACCESS
from tests.support.executor import Harness


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    h = Harness(tmp_path)
    h.policy.set(WEB_ACCESS, True)
    return h
