"""The browser console: static files served by ``spyglass serve`` at ``/``.

The page is plain HTML, CSS and ES modules (no build step, no remote origins), so the folder
ships inside the package as-is.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
"""The folder the service serves: ``GET /`` is ``index.html``, ``GET /static/<file>`` a file."""
