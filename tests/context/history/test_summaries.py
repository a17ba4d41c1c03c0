"""The history's promise with summaries: the kept messages and the summaries placed before them,
counted together as one chat request, never cost more than the budget; the sinks and the fresh
tail stay when they fit; the summaries stand only for evicted messages, in conversation order,
without overlapping. No database: the covering statement is mirrored here on plain data."""

import itertools
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.history.choice import HistoryMessage, select_history
from app.context.history.summaries import (
    SpanSummary,
    as_message,
    first_kept_after_sinks,
    place,
    reserve,
    wants_summaries,
)
from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter, Tokens
from app.sessions.spans import due
from tests.context.history.test_choice import chat_request_tokens, contents, sessions

RANDOM_SESSIONS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
BUDGETS = st.one_of(st.integers(0, 200), st.integers(0, 20_000))


def covering(summaries: Sequence[SpanSummary], before: int) -> list[SpanSummary]:
    """`SummaryRepository.covering` on plain data: the coarsest wholly before `before`."""
    inside = [s for s in summaries if s.last_seq < before]
    return sorted(
        (
            s
            for s in inside
            if not any(
                p.depth > s.depth and p.first_seq <= s.first_seq and p.last_seq >= s.last_seq
                for p in inside
            )
        ),
        key=lambda s: s.last_seq,
        reverse=True,
    )


@st.composite
def stored_summaries(draw: st.DrawFn, count: int) -> list[SpanSummary]:
    """Summaries at the places a worker makes them, some not made yet."""
    span, fanout = draw(st.integers(2, 12)), draw(st.integers(2, 4))
    tail = draw(st.integers(0, 20))
    made: list[SpanSummary] = []
    for place_ in due(count, tail, span, fanout, ()):
        if draw(st.integers(0, 5)) == 0:
            continue  # not made yet (a depth above it is still made: rows are independent)
        width = place_.last_seq - place_.first_seq + 1
        made.append(
            SpanSummary(place_.depth, place_.first_seq, place_.last_seq, width, draw(contents))
        )
    return made


@RANDOM_SESSIONS
@given(
    data=st.data(),
    messages=sessions(),
    budget=BUDGETS,
    sinks=st.integers(0, 6),
    fresh_tail=st.integers(0, 40),
    share=st.floats(0, 1),
    encoding=st.sampled_from(ENCODINGS),
)
def test_summaries_keep_the_promise(
    token_counter: TokenCounter,
    data: st.DataObject,
    messages: list[HistoryMessage],
    budget: int,
    sinks: int,
    fresh_tail: int,
    share: float,
    encoding: EncodingName,
) -> None:
    tokens = token_counter.bound(encoding)
    count = len(messages)
    stored = data.draw(stored_summaries(count))
    choice = select_history(tokens, messages, budget, sinks=sinks, fresh_tail=fresh_tail)
    if not wants_summaries(choice, count):
        return
    shrunk = reserve(tokens, choice, budget, share)
    found = covering(stored, first_kept_after_sinks(shrunk, count))
    placed = place(tokens, choice, shrunk, found, budget)
    kept = placed.choice.kept
    summaries = [as_message(s) for s in placed.summaries]
    sent = [*kept[: placed.choice.sinks], *summaries, *kept[placed.choice.sinks :]]
    assert chat_request_tokens(token_counter, encoding, sent) == placed.tokens <= budget
    # The sinks and the tail as the choice without summaries kept them.
    assert kept[: choice.sinks] == choice.kept[: choice.sinks]
    assert (
        kept[len(kept) - choice.fresh_tail :] == choice.kept[len(choice.kept) - choice.fresh_tail :]
    )
    assert set(kept) <= set(choice.kept)
    # Summaries of evicted messages only, in order, none overlapping another.
    first_kept = first_kept_after_sinks(placed.choice, count)
    spans = [(s.first_seq, s.last_seq) for s in placed.summaries]
    assert all(last < first_kept for _, last in spans)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    if not placed.summaries:
        # None shown (none found, none fit, or the refill keeps what they stood for): the
        # history as without summaries, with the whole budget back.
        assert placed.choice == choice


def test_the_coarsest_summaries_newest_first_in_their_share(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    messages = [HistoryMessage(i, "user", f"message {i}") for i in range(100)]  # 7 tokens each
    # Blocks of 10, five to a depth-2 summary; [90, 100) is still in the tail's reach.
    stored = [
        SpanSummary(p.depth, p.first_seq, p.last_seq, p.last_seq - p.first_seq + 1, "gist")
        for p in due(100, 10, 10, 5, ())
    ]
    choice = select_history(tokens, messages, 150, sinks=2, fresh_tail=6)
    assert [m.seq for m in choice.kept][:3] == [0, 1, 81]  # 2 sinks, 13 evictable, 6 tail
    shrunk = reserve(tokens, choice, 150, 0.2)  # 30 tokens kept for summaries
    assert first_kept_after_sinks(shrunk, 100) == 86  # 8 evictable in 120 tokens
    found = covering(stored, 86)
    assert [(s.depth, s.first_seq) for s in found] == [(1, 70), (1, 60), (1, 50), (2, 0)]
    placed = place(tokens, choice, shrunk, found, 150)
    # Four summaries of 5 tokens each; the evictable prefix got back what they left.
    assert [(s.depth, s.first_seq) for s in placed.summaries] == [(2, 0), (1, 50), (1, 60), (1, 70)]
    assert placed.summary_tokens == (5, 5, 5, 5)
    assert first_kept_after_sinks(placed.choice, 100) == 84  # 10 evictable in 130 tokens
    assert placed.tokens == 3 + 18 * 7 + 4 * 5 <= 150


class CountedTexts:
    """Tokens that remember what they were asked to count."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return self.tokens.count(text)

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.tokens.truncate(text, max_tokens)


def test_placing_summaries_counts_the_summaries_alone(token_counter: TokenCounter) -> None:
    """The choice holds its messages' counts: reserving the summaries' share and placing them
    (done on the event loop) count no message again, however long the session's are."""
    messages = [HistoryMessage(i, "user", f"message {i} " + "word " * i) for i in range(100)]
    stored = [
        SpanSummary(p.depth, p.first_seq, p.last_seq, p.last_seq - p.first_seq + 1, f"gist {i}")
        for i, p in enumerate(due(100, 10, 10, 5, ()))
    ]
    counted = CountedTexts(token_counter.bound("o200k_base"))
    choice = select_history(counted, messages, 1_500, sinks=2, fresh_tail=6)
    counted.texts.clear()
    shrunk = reserve(counted, choice, 1_500, 0.2)
    placed = place(counted, choice, shrunk, covering(stored, 90), 1_500)
    assert placed.summaries  # some were placed
    assert set(counted.texts) <= {s.content for s in stored} | {"system"}


@RANDOM_SESSIONS
@given(
    data=st.data(),
    messages=sessions(),
    budget=BUDGETS,
    sinks=st.integers(0, 6),
    fresh_tail=st.integers(0, 40),
    encoding=st.sampled_from(ENCODINGS),
)
def test_long_messages_shown_by_their_summaries_keep_the_promise(
    token_counter: TokenCounter,
    data: st.DataObject,
    messages: list[HistoryMessage],
    budget: int,
    sinks: int,
    fresh_tail: int,
    encoding: EncodingName,
) -> None:
    tokens = token_counter.bound(encoding)
    # Any message may have a summary of its own: only an assistant's or a tool's is ever used.
    short = {
        m.seq: "[Summarized] " + data.draw(contents) for m in messages if data.draw(st.booleans())
    }
    choice = select_history(
        tokens, messages, budget, sinks=sinks, fresh_tail=fresh_tail, short=short
    )
    assert chat_request_tokens(token_counter, encoding, choice.kept) == choice.tokens <= budget
    for kept in choice.kept:
        whole = messages[kept.seq]
        if kept != whole:
            assert whole.role in ("assistant", "tool")
            assert kept == HistoryMessage(
                whole.seq, whole.role, short[whole.seq], whole.name, whole.tool_call_id
            )
    # Never fewer evictable messages than without summaries: they only go on with the fill.
    plain = select_history(tokens, messages, budget, sinks=sinks, fresh_tail=fresh_tail)
    assert len(choice.kept) >= len(plain.kept)
