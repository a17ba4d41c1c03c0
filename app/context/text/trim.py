"""The hard-budget step: the rendered context is counted whole with the target model's
tokenizer, headers included, and while it is over the budget the least valuable part goes: the
lowest-scored memory, then the fixed sections from the bottom up. Pure.

This is the promise the service is judged on: the text it returns never has more tokens than
the budget.
"""

from app.context.selection.fill import FlexibleLayers
from app.context.text.render import FixedSections, render
from app.context.types import Excluded
from app.providers.tokenizer import Tokens

# The fixed sections that give way, first to last (the identity is shortened, last of all).
_GIVE_WAY = ("calibration", "frame", "working_memory", "censors")


def _drop_one(tokens: Tokens, fixed: FixedSections, layers: FlexibleLayers, overflow: int) -> None:
    """Remove the least valuable part: memories first, then fixed sections bottom-up."""
    items = [item for items in layers.chosen.values() for item in items]
    if items:
        worst = min(items, key=lambda item: item.scored.score)
        layers.remove(worst, Excluded(worst.scored, "budget"))
        return
    for layer in _GIVE_WAY:
        section = fixed.sections.get(layer)
        if section is None:
            continue
        if layer == "censors":
            fixed.drop_last_censor()  # a constraint at a time, the last shown first
        else:
            fixed.sections[layer] = None
        return
    identity = fixed.sections.get("identity")
    if identity is not None:
        header, _, body = identity.partition("\n")
        room = tokens.count(body) - overflow - 1
        fixed.sections["identity"] = (
            f"{header}\n{tokens.truncate(body, room)}" if room >= 4 else None
        )


def within_budget(
    tokens: Tokens, budget: int, fixed: FixedSections, layers: FlexibleLayers
) -> tuple[str, int]:
    """The rendered text and its tokens, at most `budget`; what had to go is taken out of
    `fixed` and `layers` (a memory is then left out for `budget`)."""
    text = render(fixed, layers.chosen)
    count = tokens.count(text)
    while count > budget:
        _drop_one(tokens, fixed, layers, count - budget)
        text = render(fixed, layers.chosen)
        count = tokens.count(text)
    return text, count
