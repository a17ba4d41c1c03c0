"""The period an input names: "on 13 October 2023", "in March 2024", "on 2024-03-05".

A question about a named day or month is about what happened then, so the search also reads the
memories of that period and ranking favours them. Pure: text in, a UTC interval out.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PATTERNS = (
    re.compile(rf"\b{_YEAR}-(?P<month_number>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
)
# A named day also covers the day on either side: the writer's time zone is not known, and
# "as mentioned on the 5th" is often about the day before.
_DAY_MARGIN = timedelta(days=1)


@dataclass(frozen=True)
class Period:
    """A half-open UTC interval [start, end)."""

    start: datetime
    end: datetime

    def __contains__(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def mentioned_period(text: str) -> Period | None:
    """The first calendar day or month the text names with its year, else None."""
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            period = _period(match)
            if period is not None:
                return period
    return None


def _period(match: re.Match[str]) -> Period | None:
    parts = match.groupdict()
    year = int(parts["year"])
    month = int(parts["month_number"]) if parts.get("month_number") else None
    if month is None:
        month = _MONTHS[parts["month"].lower()]
    try:
        if parts.get("day"):
            day = datetime(year, month, int(parts["day"]), tzinfo=UTC)
            return Period(day - _DAY_MARGIN, day + timedelta(days=1) + _DAY_MARGIN)
        start = datetime(year, month, 1, tzinfo=UTC)
    except ValueError:  # 31 February and the like name no day
        return None
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Period(start, end)
