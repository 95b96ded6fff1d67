"""The console's static files: complete, self-contained, CSP-clean, and shipped in the wheel."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

from spyglass.console import STATIC_DIR

ROOT = Path(__file__).resolve().parents[2]
IMPORT = re.compile(r"""^\s*import\b[^'"]*['"]([^'"]+)['"]""", re.MULTILINE)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.references: list[str] = []
        self.inline_scripts = 0
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.attributes += [name for name, _ in attrs]
        if tag == "script" and not values.get("src"):
            self.inline_scripts += 1
        for name in ("src", "href"):
            if values.get(name):
                self.references.append(str(values[name]))


def parse_index() -> _Page:
    page = _Page()
    page.feed((STATIC_DIR / "index.html").read_text(encoding="utf-8"))
    return page


def test_the_page_has_no_inline_script_handler_or_style_the_csp_would_block() -> None:
    page = parse_index()
    assert page.inline_scripts == 0
    assert [name for name in page.attributes if name.startswith("on") or name == "style"] == []


def test_everything_the_page_loads_is_a_local_file_in_the_static_folder() -> None:
    references = parse_index().references
    assert references, "index.html references no files"
    for reference in references:
        assert reference.startswith("/static/"), reference
        assert (STATIC_DIR / reference.removeprefix("/static/")).is_file(), reference


def test_every_module_import_resolves_to_a_shipped_module() -> None:
    modules = sorted(STATIC_DIR.glob("*.js"))
    assert {m.name for m in modules} >= {"app.js", "api.js", "markdown.js", "chat.js", "confirm.js"}
    for module in modules:
        for target in IMPORT.findall(module.read_text(encoding="utf-8")):
            assert target.startswith("./"), f"{module.name} imports {target} from elsewhere"
            assert (STATIC_DIR / target).is_file(), f"{module.name} imports missing {target}"


def test_no_static_file_uses_inner_html_or_a_remote_origin() -> None:
    for path in STATIC_DIR.iterdir():
        body = path.read_text(encoding="utf-8")
        assert not re.search(r"\.(inner|outer)HTML\b|insertAdjacentHTML|\beval\(", body), path.name
        for url in re.findall(r"https?://[^\s'\"`)]+", body):
            # The SVG namespace is an identifier, not a place the page connects to.
            assert url == "http://www.w3.org/2000/svg", f"{path.name} mentions {url}"


def test_the_wheel_ships_the_static_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in STATIC_DIR.iterdir():
        assert f"spyglass/console/static/{path.name}" in names
