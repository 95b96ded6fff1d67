"""Retake the README's pictures of the console and put them in docs/.

    python scripts/screenshots.py

Runs tests/console/test_screenshots.py (Debian's Chromium through Playwright, the real
service, the fake model and search provider) and copies each artifacts/screenshots/readme-*.png
to docs/ without the prefix.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
PREFIX = "readme-"


def main() -> int:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/console/test_screenshots.py",
        ],
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        return done.returncode
    for shot in sorted(SHOTS.glob(f"{PREFIX}*.png")):
        target = ROOT / "docs" / shot.name.removeprefix(PREFIX)
        shutil.copyfile(shot, target)
        print(target.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
