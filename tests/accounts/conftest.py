from tests.accounts.support import clock, store

__all__ = ["clock", "store"]
