"""The reference pages under docs/ match the code they are generated from."""

from __future__ import annotations

import pytest

from spyglass.cli import app
from spyglass.settings import Settings
from tests.support.scripts import ROOT, load_script

docgen = load_script("docgen")
DOCS = ROOT / "docs"
README = ROOT / "README.md"


@pytest.mark.parametrize("name", sorted(docgen.PAGES))
def test_generated_page_is_up_to_date(name: str) -> None:
    expected = docgen.PAGES[name]()
    actual = (DOCS / name).read_text(encoding="utf-8")
    assert actual == expected, f"docs/{name} is stale: run `python3 scripts/dev.py docs`"


def test_settings_page_lists_every_setting_with_a_description() -> None:
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for key, _default, meaning in docgen._rows(Settings, ""):
        assert f"`{key}`" in page
        assert meaning, f"setting {key} has no description"


def test_cli_page_lists_every_command() -> None:
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    for path, _command in docgen._commands(app, ["spyglass"]):
        assert f"## `{' '.join(path)}`" in page


def test_readme_gives_the_two_fresh_machine_commands() -> None:
    readme = README.read_text(encoding="utf-8")
    assert "python3 scripts/dev.py serve" in readme
    assert "python3 scripts/dev.py test" in readme
