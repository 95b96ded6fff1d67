"""Password login: argon2id hashes (argon2-cffi), never the password itself.

A person's password is optional; argon2-cffi is a dependency of every install.
"""

from __future__ import annotations

import functools
import secrets

from spyglass.accounts.model import AccountError

MIN_LENGTH = 10
MAX_LENGTH = 1024


def hash_password(password: str) -> str:
    """The argon2id hash to store; :class:`AccountError` for a password too short or long."""
    if len(password) < MIN_LENGTH:
        raise AccountError(f"a password needs at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise AccountError(f"a password may have at most {MAX_LENGTH} characters")
    from argon2 import PasswordHasher

    return PasswordHasher().hash(password)


def verify_password(hashed: str, password: str) -> bool:
    """Whether ``password`` matches ``hashed`` (any failure is a plain no)."""
    if not password or len(password) > MAX_LENGTH:
        return False
    from argon2 import PasswordHasher
    from argon2.exceptions import Argon2Error, InvalidHashError

    try:
        return PasswordHasher().verify(hashed, password)
    except (Argon2Error, InvalidHashError):
        return False


@functools.cache
def dummy_hash() -> str:
    """A hash of a random password, verified against when no account has the name asked
    for, so that answer takes as long as a wrong password."""
    from argon2 import PasswordHasher

    return PasswordHasher().hash(secrets.token_urlsafe(16))
