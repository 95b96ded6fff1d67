"""The installed version of Spyglass."""

__version__ = "0.1.0"
