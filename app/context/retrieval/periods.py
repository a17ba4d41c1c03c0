"""The period an input names: "on 13 October 2023", "in March 2024", "on 2024-03-05", and,
counted back from the build's `now`, "on 14 February", "yesterday", "last week", "3 days ago".

A question about a named day or month is about what happened then, so the search also reads the
memories of that period and ranking favours them. Pure: text in, a UTC interval out.
"""

import re
from datetime import UTC, datetime, timedelta

from app.context.types import Period

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
# "the week of 9 March 2026": the Monday-to-Sunday week around the day named next.
_WEEK_OF = re.compile(r"\bweek of\s+(?:the\s+)?$", re.IGNORECASE)
# A day and month without a year: the last one before `now`.
_YEARLESS = (
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?!,?\s+(?:19|20)\d\d)", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!,?\s+(?:19|20)\d\d)", re.IGNORECASE),
)
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "a": 1}
_RELATIVE = re.compile(
    r"\b(?:(?P<today>today|this morning|tonight)|(?P<yesterday>yesterday|last night)"
    r"|(?P<ago>\d{1,2}|one|two|three|four|five|six|seven|a) days? ago"
    r"|(?P<this>this) (?P<this_unit>week|month)|last (?P<last_unit>week|weekend|month))\b",
    re.IGNORECASE,
)
# A named day also covers the day on either side: the writer's time zone is not known, and
# "as mentioned on the 5th" is often about the day before.
_DAY_MARGIN = timedelta(days=1)


def mentioned_period(text: str, now: datetime | None = None) -> Period | None:
    """The first calendar day or month the text names with its year; else, given `now`, the
    last such day before it, or the day, week or month the text counts back from it; else None."""
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            period = _period(match)
            if period is not None:
                return _week_of(period) if _WEEK_OF.search(text[: match.start()]) else period
    if now is None:
        return None
    for pattern in _YEARLESS:
        for match in pattern.finditer(text):
            period = _last_before(match, now)
            if period is not None:
                return period
    relative = _RELATIVE.search(text)
    return _counted_back(relative, now) if relative else None


def _week_of(day: Period) -> Period:
    """The week of a named day (given with its margin), with the same margin."""
    named = day.start + _DAY_MARGIN
    monday = named - timedelta(days=named.weekday())
    return Period(monday - _DAY_MARGIN, monday + timedelta(days=7) + _DAY_MARGIN)


def _day_of(day: datetime) -> Period:
    """A day with the margin on either side."""
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return Period(start - _DAY_MARGIN, start + timedelta(days=1) + _DAY_MARGIN)


def _last_before(match: re.Match[str], now: datetime) -> Period | None:
    month, day = _MONTHS[match["month"].lower()], int(match["day"])
    for year in (now.year, now.year - 1):
        try:
            named = datetime(year, month, day, tzinfo=UTC)
        except ValueError:
            continue
        if named <= now:
            return _day_of(named)
    return None


def _counted_back(match: re.Match[str], now: datetime) -> Period:
    """Today, yesterday, n days ago, this or last week (Monday to Sunday), last weekend, this
    or last month."""
    now = now.astimezone(UTC)
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    monday = today - timedelta(days=today.weekday())
    if match["today"]:
        return _day_of(today)
    if match["yesterday"]:
        return _day_of(today - timedelta(days=1))
    if match["ago"]:
        count = match["ago"].lower()
        return _day_of(today - timedelta(days=_NUMBERS.get(count) or int(count)))
    unit = (match["this_unit"] or match["last_unit"]).lower()
    if unit == "week":
        start = monday if match["this"] else monday - timedelta(days=7)
        return Period(start - _DAY_MARGIN, start + timedelta(days=7) + _DAY_MARGIN)
    if unit == "weekend":
        saturday = monday - timedelta(days=2)
        return Period(saturday - _DAY_MARGIN, saturday + timedelta(days=2) + _DAY_MARGIN)
    first = today.replace(day=1)
    if match["last_unit"]:
        first = (first - timedelta(days=1)).replace(day=1)
    end = datetime(first.year + first.month // 12, first.month % 12 + 1, 1, tzinfo=UTC)
    return Period(first, end)


def _period(match: re.Match[str]) -> Period | None:
    parts = match.groupdict()
    year = int(parts["year"])
    month = int(parts["month_number"]) if parts.get("month_number") else None
    if month is None:
        month = _MONTHS[parts["month"].lower()]
    try:
        if parts.get("day"):
            return _day_of(datetime(year, month, int(parts["day"]), tzinfo=UTC))
        start = datetime(year, month, 1, tzinfo=UTC)
    except ValueError:  # 31 February and the like name no day
        return None
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Period(start, end)
