"""A tool's result held to its tokens: entries whole while they fit, the next one cut, the rest
counted as left out, never a token over. Pure."""

import uuid

from app.providers.tokenizer import TokenCounter
from app.tools.fit import fit
from app.tools.types import Item, Reference, Section, ToolOutput


def output(count: int, words: int = 30) -> ToolOutput:
    items = tuple(
        Item(f"- entry {i}: " + "lorem ipsum " * words, Reference("memory", uuid.uuid4()))
        for i in range(count)
    )
    return ToolOutput(
        (Section("Found:", items, "Nothing."), Section("Other:", (), "No other.")), "Hint."
    )


def test_everything_fits_whole(token_counter: TokenCounter) -> None:
    found = output(3, words=2)
    fitted = fit(token_counter, found, 1000)
    assert (
        fitted.text
        == "\n".join(["Found:", *(item.text for item in found.sections[0].items)])
        + "\n\nNo other.\n\nHint."
    )
    assert fitted.tokens == token_counter.count(fitted.text)
    assert (fitted.left_out, fitted.cut) == (0, False)
    assert fitted.references == tuple(item.reference for item in found.sections[0].items)


def test_never_a_token_over_and_only_what_is_shown_is_referenced(
    token_counter: TokenCounter,
) -> None:
    found = output(6)
    for limit in range(64, 600, 7):
        fitted = fit(token_counter, found, limit)
        assert fitted.tokens == token_counter.count(fitted.text) <= limit
        shown = [item for item in found.sections[0].items if item.reference in fitted.references]
        assert len(shown) + fitted.left_out == 6
        # Whole entries first; at most the last one shown is cut.
        for item in shown[:-1]:
            assert item.text in fitted.text
        if fitted.left_out:
            assert f"({fitted.left_out} more not shown" in fitted.text


def test_a_long_entry_is_cut_to_the_room_left(token_counter: TokenCounter) -> None:
    found = output(1, words=500)
    fitted = fit(token_counter, found, 100)
    assert fitted.cut
    assert fitted.left_out == 0
    assert fitted.tokens <= 100
    assert fitted.text.startswith("Found:\n- entry 0: lorem ipsum")
    assert "…" in fitted.text
