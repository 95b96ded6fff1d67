"""Reading pages that need JavaScript: a headless Chromium whose every request passes the guard.

- :mod:`~spyglass.fetch.render.detect`: does a static read look like a script shell?
- :mod:`~spyglass.fetch.render.decide`: ``fetch.render`` (off, auto, always), the fallback.
- :mod:`~spyglass.fetch.render.renderer`: one render in a fresh context of the browser.
- :mod:`~spyglass.fetch.render.host`: the one warm, contained browser of the process.
- :mod:`~spyglass.fetch.render.exchange`: the route handler answering every request
  through Spyglass's guarded client.
- :mod:`~spyglass.fetch.render.browser`: finding Chromium, the switches that leave it no
  way to the network of its own, the dead-end proxy.
- :mod:`~spyglass.fetch.render.limits`: the render's bounds from settings.

Playwright is optional (``pip install 'spyglass[render]'``); it is imported by the first
render, never with this package.
"""
