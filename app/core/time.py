"""Timestamps: always timezone-aware UTC."""

from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)
