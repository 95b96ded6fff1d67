"""The HTTP service behind ``spyglass serve``: API, console, Open WebUI endpoints."""
