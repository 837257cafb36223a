"""Secrets never reach anything written: terminal, JUnit, JSON report, cache files.

The model layer registers each API key it reads; :func:`redact` replaces those values,
``Bearer <token>`` strings and credentials in URLs. Stdlib only (used by reports and errors).
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{4,}")
# An echoed header of any scheme ("Authorization: Basic dXNlcjpw..."): the whole value goes.
_AUTH_HEADER = re.compile(
    r"(?i)\b(authorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?)[^\s\"',;}]{1,40}[ \t]+[^\s\"',;}]{1,4096}"
)
_URL_CREDENTIALS = re.compile(
    r"(?i)\b([a-z][a-z0-9+.-]{0,20}://)[^/\s@:]{1,256}(?::[^/\s@]{0,256})?@"
)
# API keys read in this process. Short values ("EMPTY", "x") are placeholders, not secrets.
_SECRETS: set[str] = set()
_MIN_SECRET = 8


def register_secret(value: str | None) -> None:
    """Remember a secret value so that :func:`redact` removes it from everything written."""
    if value and len(value) >= _MIN_SECRET:
        _SECRETS.add(value)


def redact(text: str) -> str:
    """``text`` without registered secrets, bearer tokens or URL credentials."""
    if not text:
        return text
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "://" in text and "@" in text:
        text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    lowered = text.lower()
    if "authorization" in lowered:
        text = _AUTH_HEADER.sub(
            lambda m: m.group(1) + _scheme(m.group(0)[len(m.group(1)) :]) + REDACTED, text
        )
    if "bearer" in lowered:
        text = _BEARER.sub(rf"\1 {REDACTED}", text)
    return text


def _scheme(value: str) -> str:
    scheme = value.split(None, 1)[0]
    return f"{scheme} " if scheme.lower() in ("bearer", "basic", "token", "digest") else ""


def strip_url_credentials(url: str) -> str:
    """``https://user:pass@host/v1`` -> ``https://host/v1`` (for notes written to cache files)."""
    return _URL_CREDENTIALS.sub(r"\1", url)


def clean_for_output(value: Any) -> Any:
    """A copy of a report tree with every string redacted and non-finite floats as None
    (so the JSON written is always valid: ``allow_nan=False``)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {
            redact(str(k)) if isinstance(k, str) else k: clean_for_output(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [clean_for_output(v) for v in value]
    return value
