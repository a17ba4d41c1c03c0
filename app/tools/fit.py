"""A tool's result held to its tokens. Pure.

Entries go in best first, whole while the whole text still fits, recounted at each step (tokens
do not add up across a join); the first that does not fit is cut to the room left when that is
at least `MIN_CUT` tokens, else left out, and everything after it is left out. A closing line
says how many were left out; to make room for it, the last entries shown go too. The text's
tokens never pass `max_tokens`.
"""

from collections.abc import Sequence

from app.providers.tokenizer import Tokens
from app.tools.types import Fitted, Item, ToolOutput

MIN_CUT = 8  # a shorter cut says too little to be worth the tokens
PARTS = "\n\n"


def render(output: ToolOutput, shown: Sequence[Sequence[Item]], left_out: int, limit: int) -> str:
    """The result's text with these entries of each section shown."""
    parts = []
    for section, items in zip(output.sections, shown, strict=True):
        if not section.items:
            parts.append(section.empty)
        else:
            parts.append("\n".join([section.title, *(item.text for item in items)]))
    if left_out:
        parts.append(f"({left_out} more not shown: the result is held to {limit} tokens.)")
    if output.hint:
        parts.append(output.hint)
    return PARTS.join(part for part in parts if part)


def _with(shown: Sequence[Sequence[Item]], section: int, item: Item) -> list[list[Item]]:
    """The entries shown, and `item` after those of `section`."""
    return [[*items, item] if i == section else list(items) for i, items in enumerate(shown)]


def _cut(
    tokens: Tokens,
    output: ToolOutput,
    shown: list[list[Item]],
    section: int,
    item: Item,
    limit: int,
) -> Item | None:
    """The entry shortened to the room the text leaves it, or None when that room is short."""
    room = limit - tokens.count(render(output, _with(shown, section, Item("")), 0, limit))
    while room >= MIN_CUT:
        short = Item(tokens.truncate(item.text, room), item.reference)
        over = tokens.count(render(output, _with(shown, section, short), 0, limit)) - limit
        if over <= 0:
            return short
        room -= over
    return None


def fit(tokens: Tokens, output: ToolOutput, limit: int) -> Fitted:
    """The result within `limit` tokens (see the module's docstring)."""
    shown: list[list[Item]] = [[] for _ in output.sections]
    entries = [(index, item) for index, s in enumerate(output.sections) for item in s.items]
    cut = False
    taken = 0
    for index, item in entries:
        shown[index].append(item)
        if tokens.count(render(output, shown, 0, limit)) <= limit:
            taken += 1
            continue
        shown[index].pop()
        short = _cut(tokens, output, shown, index, item, limit)
        if short is not None:
            shown[index].append(short)
            taken, cut = taken + 1, True
        break
    left_out = len(entries) - taken
    text = render(output, shown, left_out, limit)
    count = tokens.count(text)
    while left_out and count > limit and any(shown):
        last = max(i for i, items in enumerate(shown) if items)
        shown[last].pop()
        left_out += 1
        text = render(output, shown, left_out, limit)
        count = tokens.count(text)
    if count > limit:  # only when the titles alone pass a very small limit
        text = tokens.truncate(text, limit)
        count = tokens.count(text)
    items = tuple(item for section in shown for item in section)
    references = tuple(dict.fromkeys(i.reference for i in items if i.reference is not None))
    return Fitted(text, count, references, left_out, cut)
