"""The history's promise: whatever the session, window and encoding, the messages kept never cost
more chat tokens than their budget; sinks and fresh tail are kept when they fit, the evictable
prefix is kept newest first without gaps, and order is preserved. No database: the tokenizer only.
"""

from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.history.choice import (
    HistoryMessage,
    budget_passed_at,
    reach,
    read_from,
    read_from_totals,
    select_history,
)
from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter
from app.sessions.history_repository import StoredCost

ROLES = ("user", "assistant", "system", "tool")
words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40
)
# Short messages, and now and then a very long one (a pasted file, a tool's output).
contents = st.one_of(
    words,
    words,
    words,
    st.builds(lambda text, times: (text + " ") * times, words, st.integers(50, 1500)),
)


@st.composite
def sessions(draw: st.DrawFn) -> list[HistoryMessage]:
    length = draw(st.integers(0, 300))
    messages = []
    for seq in range(length):
        role = draw(st.sampled_from(ROLES))
        name = draw(st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)))
        messages.append(
            HistoryMessage(
                seq,
                role,
                draw(contents),
                name=None if role == "tool" else name,
                tool_call_id=f"call_{seq}" if role == "tool" else None,
            )
        )
    return messages


def chat_request_tokens(
    counter: TokenCounter, encoding: EncodingName, messages: Sequence[HistoryMessage]
) -> int:
    """Counted here on its own, as OpenAI's cookbook counts a gpt-4o chat request."""
    if not messages:
        return 0
    total = 3  # the reply's priming
    for message in messages:
        total += (
            3 + counter.count(message.role, encoding) + counter.count(message.content, encoding)
        )
        if message.name is not None:
            total += counter.count(message.name, encoding) + 1
        if message.tool_call_id is not None:
            total += counter.count(message.tool_call_id, encoding)
    return total


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    messages=sessions(),
    budget=st.one_of(st.integers(0, 60), st.integers(0, 20_000)),
    sinks=st.integers(0, 6),
    fresh_tail=st.integers(0, 40),
    encoding=st.sampled_from(ENCODINGS),
)
def test_history_never_exceeds_its_budget(
    token_counter: TokenCounter,
    messages: list[HistoryMessage],
    budget: int,
    sinks: int,
    fresh_tail: int,
    encoding: EncodingName,
) -> None:
    tokens = token_counter.bound(encoding)
    choice = select_history(tokens, messages, budget, sinks=sinks, fresh_tail=fresh_tail)
    kept = list(choice.kept)
    assert chat_request_tokens(token_counter, encoding, kept) == choice.tokens <= budget
    seqs = [m.seq for m in kept]
    assert seqs == sorted(set(seqs))  # in conversation order, each once
    assert all(messages[m.seq] is m for m in kept)  # verbatim
    count = len(messages)
    sink_seqs = list(range(min(sinks, count)))
    tail_seqs = list(range(max(count - fresh_tail, len(sink_seqs)), count))
    protected = [messages[i] for i in sink_seqs + tail_seqs]
    evictable = [s for s in seqs if len(sink_seqs) <= s < (tail_seqs or [count])[0]]
    if chat_request_tokens(token_counter, encoding, protected) <= budget:
        assert choice.reason is None
        assert (choice.sinks, choice.fresh_tail) == (len(sink_seqs), len(tail_seqs))
        assert set(sink_seqs + tail_seqs) <= set(seqs)
        # Newest first without gaps: the evictable messages kept end where the tail begins...
        end = tail_seqs[0] if tail_seqs else count
        assert evictable == list(range(end - len(evictable), end))
        # ... and the next older one did not fit (Missy's rule stops at the first that does not).
        older = end - len(evictable) - 1
        if older >= len(sink_seqs):
            with_it = sorted([*kept, messages[older]], key=lambda m: m.seq)
            assert chat_request_tokens(token_counter, encoding, with_it) > budget
    else:
        assert evictable == []
        assert choice.reason is not None
        if kept and protected[-1].seq == count - 1:  # the last message is the last to go
            assert seqs[-1] == count - 1
    # Reading only the sinks and the last `reach` messages selects the same.
    last = reach(budget, fresh_tail)
    ends = [m for m in messages if m.seq < sinks or m.seq >= count - last]
    assert select_history(tokens, ends, budget, sinks=sinks, fresh_tail=fresh_tail) == choice
    # ... and so does reading only as far back as the stored token counts say: exactly when
    # they were counted in the build's encoding (the sinks are read apart).
    stored = [
        StoredCost(m.seq, m.role, token_counter.count(m.content, encoding))
        for m in messages[max(sinks, count - last) :]
    ]
    start = read_from(stored, budget, fresh_tail=fresh_tail, long=0, scale=1.0) if stored else 0
    read = [m for m in messages if m.seq < sinks or m.seq >= start]
    assert select_history(tokens, read, budget, sinks=sinks, fresh_tail=fresh_tail) == choice
    # A session whose stored tokens all fit reads none of them: its totals say where to start.
    total = sum(token_counter.count(m.content, encoding) for m in messages)
    totals = read_from_totals(count, total, budget, sinks=sinks, fresh_tail=fresh_tail, scale=1.0)
    assert totals in (None, start)
    # A build reads the stored costs newest first, a page at a time, and stops at the first page
    # that passes the budget: what it then reads from is the same.
    for page in range(1, len(stored) + 1):
        newest = stored[len(stored) - page :]
        if budget_passed_at(newest, budget, long=0, scale=1.0) is not None:
            assert read_from(newest, budget, fresh_tail=fresh_tail, long=0, scale=1.0) == start


def say(seq: int, content: str, role: str = "user") -> HistoryMessage:
    return HistoryMessage(seq, role, content)


def test_the_tail_goes_oldest_first_then_the_sinks(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    messages = [say(i, f"message {i}") for i in range(10)]  # 3 + 1 + 3 = 7 tokens each
    # Sinks 0-1 and tail 6-9 cost 6 * 7 + 3 = 45; 31 leaves room for four messages.
    choice = select_history(tokens, messages, 31, sinks=2, fresh_tail=4)
    assert [m.seq for m in choice.kept] == [0, 1, 8, 9]
    assert (choice.sinks, choice.fresh_tail, choice.tokens) == (2, 2, 31)
    assert choice.reason is not None
    assert "2 of the tail and 0 of the sinks" in choice.reason
    # Room for two: the tail is down to its last message, then the newer sink goes.
    choice = select_history(tokens, messages, 17, sinks=2, fresh_tail=4)
    assert [m.seq for m in choice.kept] == [0, 9]


def test_nothing_when_not_even_the_last_message_fits(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("cl100k_base")
    messages = [say(0, "hi"), say(1, "a long answer " * 50, "assistant")]
    choice = select_history(tokens, messages, 40, sinks=1, fresh_tail=1)
    assert choice.kept == ()
    assert choice.tokens == 0
    assert choice.reason == "not even the last message fits the history's 40 tokens"


def test_the_evictable_prefix_is_filled_newest_first(token_counter: TokenCounter) -> None:
    tokens = token_counter.bound("o200k_base")
    messages = [say(i, f"message {i}") for i in range(10)]
    messages[5] = say(5, "a long one " * 20)
    # Sink 0, tail 8-9, then 7 and 6 fit; 5 does not, so 4 and older go though they would fit.
    choice = select_history(tokens, messages, 7 * 5 + 3, sinks=1, fresh_tail=2)
    assert [m.seq for m in choice.kept] == [0, 6, 7, 8, 9]
    assert choice.reason is None


def test_the_totals_of_a_session_that_fits_say_where_to_read_from() -> None:
    """What the walk over the stored costs finds, without them, when the session fits; nothing
    when it may not."""
    costs = [StoredCost(seq, "user", 20) for seq in range(30)]
    for sinks, fresh_tail in ((0, 4), (2, 4), (2, 40), (40, 4)):
        stored = costs[sinks:]
        walked = read_from(stored, 2_000, fresh_tail=fresh_tail, long=0, scale=1.0) if stored else 0
        assert read_from_totals(30, 600, 2_000, sinks=sinks, fresh_tail=fresh_tail, scale=1.0) == (
            walked
        )
    # 30 messages of 20 tokens and their overheads are 723 tokens: 700 cannot be told.
    assert read_from_totals(30, 600, 700, sinks=2, fresh_tail=4, scale=1.0) is None
    assert read_from_totals(30, 600, 723, sinks=2, fresh_tail=4, scale=1.0) is not None
