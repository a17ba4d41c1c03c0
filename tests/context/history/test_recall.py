"""Recall's promise: whatever the session, the context and the messages found, the context with
the recalled section, recounted, and the history chosen again never exceed available; each
recalled message is quoted whole; the sinks and fresh tail the first choice kept stay. No
database: the tokenizer only."""

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.history.choice import HistoryMessage, select_history
from app.context.history.recall import (
    RECALL_HEADER,
    RecallHit,
    fit_recalled,
    recall_into,
    recall_line,
    with_recalled,
    words_needed,
)
from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter
from tests.context.history.test_choice import sessions, words

SAID_AT = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    messages=sessions(),
    context=st.one_of(st.just(""), words),
    available=st.one_of(st.integers(0, 200), st.integers(0, 20_000)),
    picks=st.lists(st.integers(0, 299), max_size=3, unique=True),
    encoding=st.sampled_from(ENCODINGS),
)
def test_recall_never_exceeds_available(
    token_counter: TokenCounter,
    messages: list[HistoryMessage],
    context: str,
    available: int,
    picks: list[int],
    encoding: EncodingName,
) -> None:
    tokens = token_counter.bound(encoding)
    context_tokens = tokens.count(context)
    budget = max(available - context_tokens, 0)
    choice = select_history(tokens, messages, budget, sinks=2, fresh_tail=4)
    kept = {m.seq for m in choice.kept}
    evicted = [m for m in messages if m.seq not in kept]
    hits = [RecallHit(evicted[i], SAID_AT, 0.1) for i in picks if i < len(evicted)]
    recall, again = recall_into(tokens, context, context_tokens, hits, choice, available)
    if not recall.hits:
        assert (recall.text, again) == (context, choice)
        return
    assert tokens.count(recall.text) == recall.tokens == context_tokens + recall.added
    assert recall.tokens + again.tokens <= available
    lines = [recall_line(hit) for hit in recall.hits]
    assert recall.text.endswith("\n".join([RECALL_HEADER, *lines]))
    assert [h.message.seq for h in recall.hits] == sorted(h.message.seq for h in recall.hits)
    # Sinks and tail stay; the recalled ones are not kept twice.
    protected = [*choice.kept[: choice.sinks], *choice.kept[len(choice.kept) - choice.fresh_tail :]]
    assert set(protected) <= set(again.kept) <= set(choice.kept)
    assert not {h.message.seq for h in recall.hits} & {m.seq for m in again.kept}


def test_a_clear_reference_holds_two_of_the_inputs_words_or_its_only_one() -> None:
    assert [words_needed(n) for n in (1, 2, 3, 10)] == [1, 2, 2, 2]
    hit = RecallHit(HistoryMessage(12, "user", "Rotate it on Tuesday."), SAID_AT, 0.5)
    assert recall_line(hit) == "- [seq 12, user, 2026-11-20] Rotate it on Tuesday."


def test_the_best_hits_that_fit_whole_come_back_and_the_rest_wait(
    token_counter: TokenCounter,
) -> None:
    tokens = token_counter.bound("cl100k_base")
    context = "## Identity\nNewton.\n\n## Facts\n- Redis runs on port 6380 in staging."
    said = [
        HistoryMessage(seq, "user", f"message {seq}: " + "the cache warms in the night " * seq)
        for seq in (3, 5, 9)
    ]
    hits = [RecallHit(message, SAID_AT, 1.0 / (i + 1)) for i, message in enumerate(said)]
    whole = with_recalled(context, hits)
    first_two = with_recalled(context, hits[:2])
    context_tokens = tokens.count(context)

    everything = fit_recalled(tokens, context, context_tokens, hits, tokens.count(whole))
    assert everything.hits == tuple(hits)
    assert everything.text == whole

    # One token short of the three: the best two, in conversation order, and counted exactly.
    two = fit_recalled(tokens, context, context_tokens, hits, tokens.count(whole) - 1)
    assert two.hits == tuple(hits[:2])
    assert two.text == first_two
    assert two.tokens == tokens.count(first_two) == context_tokens + two.added
    assert two.line_tokens == tuple(tokens.count(recall_line(h)) + 1 for h in hits[:2])

    # No room beyond the context: none, and the context as it was.
    none = fit_recalled(tokens, context, context_tokens, hits, context_tokens)
    assert (none.hits, none.text, none.tokens) == ((), context, context_tokens)
