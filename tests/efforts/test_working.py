"""Working memory's rules, pure: how an effort is placed at a turn, and the promise with the
efforts' part of the context (context + history <= available, for any session)."""

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.history.choice import HistoryMessage
from app.context.history.efforts import (
    EFFORTS_HEADER,
    MEMORY_HEADER,
    choose,
    effort_line,
    fit_efforts,
)
from app.core.context_config import EffortSettings, WindowSettings
from app.efforts.repository import WorkingRow
from app.efforts.working import EffortView, placement
from app.providers.tokenizer import ENCODINGS, EncodingName, TokenCounter
from tests.context.history.test_choice import sessions, words

DEFAULTS = EffortSettings()


def effort(
    number: int,
    state: str = "concluded",
    referenced: int = 0,
    summary: str | None = "we fixed it",
    concluded: int | None = 0,
) -> EffortView:
    return EffortView(
        uuid.uuid4(), f"e_{number}", f"Effort {number}", state, summary, referenced, concluded
    )


def test_a_summary_stays_twenty_turns_after_its_last_reference() -> None:
    seen = effort(1, referenced=1)
    assert placement(seen, 21, DEFAULTS) == "summary"
    assert placement(seen, 22, DEFAULTS) == "evicted"
    assert placement(effort(2, "open", referenced=0), 500, DEFAULTS) == "raw"


def test_an_expanded_effort_collapses_on_its_third_idle_turn() -> None:
    opened = effort(4, "expanded", referenced=23, concluded=10)
    assert [placement(opened, t, DEFAULTS) for t in (23, 24, 25, 26)] == [
        "raw", "raw", "raw", "summary",
    ]  # fmt: skip


def test_the_grace_period_keeps_a_just_concluded_summary() -> None:
    rules = EffortSettings(summary_eviction_turns=0, concluded_grace_turns=5)
    fresh = effort(1, referenced=10, concluded=10)
    assert [placement(fresh, t, rules) for t in (10, 14, 15)] == ["summary", "summary", "evicted"]


def test_the_section_shows_the_best_that_fit_and_says_what_is_hidden(
    token_counter: TokenCounter,
) -> None:
    tokens = token_counter.bound("o200k_base")
    wanted = [effort(2, summary="two " * 5), effort(1, summary="one " * 400)]
    fit = fit_efforts(tokens, "ctx", 1, wanted, evicted=3, room=200, session="chat-2")
    assert [e.name for e in fit.shown] == ["e_2"]
    assert [e.name for e in fit.dropped] == ["e_1"]
    assert fit.note
    assert fit.text.startswith(f"ctx\n\n{EFFORTS_HEADER}\n{effort_line(wanted[0])}")
    assert "4 older efforts are still stored" in fit.text
    assert MEMORY_HEADER in fit.text
    # The tools need the session's id, and the model learns it here.
    assert 'search_memory(query, session_id="chat-2")' in fit.text
    assert fit.tokens == tokens.count(fit.text) <= 200
    nothing = fit_efforts(tokens, "ctx", 1, wanted, evicted=3, room=1, session="chat-2")
    assert (nothing.text, nothing.tokens, nothing.note) == ("ctx", 1, False)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    messages=sessions(),
    context=st.one_of(st.just(""), words),
    available=st.one_of(st.integers(0, 200), st.integers(0, 20_000)),
    summaries=st.lists(st.one_of(st.none(), words), max_size=6),
    evicted=st.integers(0, 50),
    encoding=st.sampled_from(ENCODINGS),
)
def test_working_memory_never_exceeds_available(
    token_counter: TokenCounter,
    messages: list[HistoryMessage],
    context: str,
    available: int,
    summaries: list[str | None],
    evicted: int,
    encoding: EncodingName,
) -> None:
    tokens = token_counter.bound(encoding)
    rows = [WorkingRow(m.seq, m.role, m.content, m.name, m.tool_call_id, None) for m in messages]
    wanted = [effort(i + 1, summary=s, referenced=i) for i, s in enumerate(summaries)]
    window = WindowSettings(sinks=2, fresh_tail=4)
    context_tokens = tokens.count(context)
    choice, fit = choose(
        tokens, rows, window, (context, context_tokens), wanted, evicted, available, "chat-1"
    )
    assert fit.tokens == tokens.count(fit.text)
    if fit.added:
        assert fit.tokens + choice.tokens <= available
    else:  # the context alone, as a build without efforts would have it
        assert fit.text == context
        assert choice.tokens <= max(available - context_tokens, 0)
    assert len(fit.shown) + len(fit.dropped) == len(wanted)
    assert fit.note == (bool(fit.added) and (evicted > 0 or bool(fit.dropped)))
