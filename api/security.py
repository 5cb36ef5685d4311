"""Password hashing (argon2 through pwdlib) and the random tokens of sessions, CSRF and scripts.

Tokens are handed to the client once and stored only as their sha256: a leaked database opens no session.
"""

import hashlib
import secrets

from pwdlib import PasswordHash

_hasher = PasswordHash.recommended()
# Verified against when the user does not exist, so a wrong name costs as long as a wrong password.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> tuple[bool, str | None]:
    """Whether the password matches, and a new hash when the stored one uses outdated parameters."""
    if password_hash is None:
        _hasher.verify(password, _DUMMY_HASH)
        return False, None
    return _hasher.verify_and_update(password, password_hash)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_token(given: str | None, expected: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), expected.encode())
