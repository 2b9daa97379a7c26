"""The exceptions tpuc raises; the native module raises them by name."""

from __future__ import annotations


class Error(Exception):
    """An error tpuc reports: ``str(error)`` is the diagnostic the CLI prints, ``code`` its
    code (such as ``tpuc::plugin``), or ``None``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return self.message


class CacheError(Error):
    """A cache entry that failed verification (it is quarantined unless the cache is
    read-only)."""


class UntrustedError(CacheError):
    """A cache entry not signed by any of the trusted keys."""
