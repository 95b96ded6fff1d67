"""The execute stage's deadline: a capability's bound, or the setting it names plus a grace."""

from __future__ import annotations

from spyglass.capabilities.fetch import CAPABILITY as FETCH
from spyglass.core.execution import TIMEOUT_GRACE_SECONDS, timeout_for
from spyglass.settings import Settings
from tests.support import capabilities as fixtures


def test_a_capability_without_a_timeout_setting_runs_within_its_own_bound() -> None:
    capability = fixtures.make("test.echo")
    assert timeout_for(capability, Settings()) == capability.bounds.timeout_seconds


def test_a_capability_naming_a_setting_gets_that_setting_plus_the_grace() -> None:
    settings = Settings()
    expected = settings.fetch.call_timeout_seconds + TIMEOUT_GRACE_SECONDS
    assert timeout_for(FETCH, settings) == expected
