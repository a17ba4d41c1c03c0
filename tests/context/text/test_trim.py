"""The hard budget: whatever the memories, budget, encoding and fixed content, the context never
has more tokens than its budget, and every candidate is either in it or left out with a reason.
No database: the target model's tokenizer only."""

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.context.pipeline import assemble
from app.context.types import Censor, FlexibleKind
from app.providers.tokenizer import ENCODINGS, TokenCounter
from tests.context.builders import KINDS, candidate, content, ranked_by_settings

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=0,
    max_size=300,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=1, max_value=3000),
    identity=words,
    working=words,
    items=st.lists(st.tuples(st.sampled_from(KINDS), words, words, st.floats(0, 1)), max_size=25),
    censor_count=st.integers(0, 6),
    encoding=st.sampled_from(ENCODINGS),
    note=st.one_of(st.none(), words),
)
def test_context_never_exceeds_its_budget(
    token_counter: TokenCounter,
    budget: int,
    identity: str,
    working: str,
    items: list[tuple[FlexibleKind, str, str, float]],
    censor_count: int,
    encoding: str,
    note: str | None,
) -> None:
    tokens = token_counter.bound(encoding)  # type: ignore[arg-type]  # sampled from ENCODINGS
    candidates = [
        candidate(kind, summary or "x", micro or "y", sim) for kind, summary, micro, sim in items
    ]
    censors = tuple(
        Censor(uuid.uuid4(), "block" if i % 2 else "warn", f"pattern {i} " * 5, "reason " * 8)
        for i in range(censor_count)
    )
    result = assemble(
        tokens,
        budget,
        content(identity, censors, working, note),
        ranked_by_settings(candidates),
    )
    assert tokens.count(result.text) == result.tokens <= budget
    shown = {str(i.scored.candidate.memory_id) for layer in result.layers for i in layer.items}
    left_out = {str(e.scored.candidate.memory_id) for e in result.excluded}
    assert shown | left_out == {str(c.memory_id) for c in candidates}
    assert not shown & left_out
