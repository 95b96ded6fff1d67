"""docs/architecture.md names every package and draws the exception tree the code has."""

from __future__ import annotations

import re
from pathlib import Path

import spyglass
import spyglass.errors
from spyglass.errors import SpyglassError
from tests.support.exceptions import exception_classes

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
SOURCE = Path(spyglass.__file__).resolve().parent
#: One line of a drawn tree: the guides (``│   `` or four spaces per level), then the branch.
BRANCH = re.compile(r"^((?:│   |    )*)[├└]── (\w+)")


def tree(drawing: str) -> dict[str, str | None]:
    """Each class of a drawn tree, with the class it is drawn under (``None`` for the root)."""
    lines = [line for line in drawing.splitlines() if line.strip()]
    indent = len(lines[0]) - len(lines[0].lstrip())
    root = lines[0].split()[0]
    parents: dict[str, str | None] = {root: None}
    path = [root]
    for line in lines[1:]:
        branch = BRANCH.match(line[indent:])
        if branch is None:
            continue  # a comment carried on from the line above
        depth = len(branch.group(1)) // 4 + 1
        del path[depth:]
        parents[branch.group(2)] = path[-1]
        path.append(branch.group(2))
    return parents


def doc_tree() -> dict[str, str | None]:
    drawings = re.findall(r"```\n(SpyglassError\n.*?)```", DOC.read_text(), flags=re.S)
    assert len(drawings) == 1, "docs/architecture.md draws the exception tree once"
    return tree(drawings[0])


def errors_tree() -> dict[str, str | None]:
    docstring = spyglass.errors.__doc__ or ""
    return tree(docstring[docstring.index("SpyglassError\n") - 4 :])


def test_the_tree_parser_reads_guides_branches_and_carried_on_comments() -> None:
    drawing = "A\n├── B   one\n│   │    carried on\n│   └── C\n└── D\n    └── E\n"
    assert tree(drawing) == {"A": None, "B": "A", "C": "B", "D": "A", "E": "D"}


def test_the_exception_tree_in_the_doc_is_the_one_in_spyglass_errors() -> None:
    assert doc_tree() == errors_tree()


def test_the_exception_tree_in_the_doc_has_each_class_under_its_real_base() -> None:
    real: dict[str, str | None] = {}
    for cls in exception_classes():
        bases = [base for base in cls.__bases__ if issubclass(base, SpyglassError)]
        real[cls.__name__] = bases[0].__name__ if bases else None
    assert doc_tree() == real


def test_the_package_table_names_every_top_level_package_and_only_real_ones() -> None:
    text = DOC.read_text()
    table = text[text.index("## Packages") :]
    named: set[str] = set()
    for row in re.findall(r"^\| (.*?) \|", table, flags=re.M):
        named |= set(re.findall(r"`spyglass\.(\w+)`", row))
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    modules = {path.stem for path in SOURCE.glob("*.py")} - {"__init__", "__main__"}
    assert packages - named == set(), "packages the table leaves out"
    assert named - packages - modules == set(), "names in the table that are not in the code"
