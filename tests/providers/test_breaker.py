"""The circuit breaker: pauses calls to a failing provider, tries it now and then, closes on
an answer. A clock the test moves stands in for time."""

import asyncio

import pytest

from app.core.config import BreakerSettings
from app.providers.breaker import CircuitBreaker
from app.providers.errors import ProviderRejected, ProviderUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


SETTINGS = BreakerSettings(failures_to_open=3, first_pause_seconds=1.0, max_pause_seconds=4.0)


async def down() -> str:
    raise ProviderUnavailable("connection refused")


async def up() -> str:
    return "answer"


async def rejected() -> str:
    raise ProviderRejected("input too long")


def state(breaker: CircuitBreaker) -> str:
    return breaker.state


async def fail(breaker: CircuitBreaker, times: int) -> None:
    for _ in range(times):
        with pytest.raises(ProviderUnavailable):
            await breaker.call(down)


async def test_it_opens_after_failures_in_a_row_and_refuses_without_calling() -> None:
    clock = Clock()
    breaker = CircuitBreaker("embeddings", SETTINGS, clock)
    await fail(breaker, 2)
    assert state(breaker) == "closed"
    assert await breaker.call(up) == "answer"  # an answer starts the count again
    await fail(breaker, 3)
    assert state(breaker) == "open"
    assert not breaker.ready()

    called = False

    async def tracked() -> str:
        nonlocal called
        called = True
        return "answer"

    with pytest.raises(ProviderUnavailable, match="paused"):
        await breaker.call(tracked)
    assert not called


async def test_one_trial_after_the_pause_and_the_pause_doubles_while_it_fails() -> None:
    clock = Clock()
    breaker = CircuitBreaker("embeddings", SETTINGS, clock)
    await fail(breaker, 3)
    pauses = []
    for _ in range(4):
        opened_at = clock.now
        while not breaker.ready():
            clock.now += 0.25
        pauses.append(clock.now - opened_at)
        await fail(breaker, 1)  # the trial fails
    assert pauses == [1.0, 2.0, 4.0, 4.0]  # doubled up to max_pause_seconds


async def test_while_the_trial_runs_other_calls_are_refused_and_an_answer_closes_it() -> None:
    clock = Clock()
    breaker = CircuitBreaker("embeddings", SETTINGS, clock)
    await fail(breaker, 3)
    clock.now += 1.0
    release = asyncio.Event()

    async def slow() -> str:
        await release.wait()
        return "answer"

    trial = asyncio.create_task(breaker.call(slow))
    await asyncio.sleep(0)
    assert state(breaker) == "trial"
    with pytest.raises(ProviderUnavailable):
        await breaker.call(up)
    release.set()
    assert await trial == "answer"
    assert state(breaker) == "closed"
    assert breaker.take_recovery()
    assert not breaker.take_recovery()  # said once


async def test_a_missed_deadline_is_the_callers_and_the_calls_own_end_is_counted() -> None:
    breaker = CircuitBreaker("embeddings", SETTINGS, Clock())
    answers = asyncio.Event()

    async def slow() -> str:
        await answers.wait()
        return "answer"

    for _ in range(3):
        with pytest.raises(ProviderUnavailable, match=r"no answer within 0\.01 s"):
            await breaker.call(slow, deadline=0.01)
    assert state(breaker) == "closed"  # slow is not down: the calls go on
    answers.set()
    await asyncio.sleep(0.01)
    assert state(breaker) == "closed"

    async def times_out() -> str:
        await asyncio.sleep(0.02)
        raise TimeoutError  # the provider's own timeout, after the caller's deadline

    for _ in range(3):
        with pytest.raises(ProviderUnavailable, match="within"):
            await breaker.call(times_out, deadline=0.01)
    await asyncio.sleep(0.05)
    assert state(breaker) == "open"


async def test_a_trial_that_outlived_its_opening_does_not_reopen_the_breaker() -> None:
    clock = Clock()
    breaker = CircuitBreaker("embeddings", SETTINGS, clock)
    await fail(breaker, 3)
    clock.now += 1.0
    release = asyncio.Event()

    async def slow_failure() -> str:
        await release.wait()
        raise ProviderUnavailable("late")

    stale = asyncio.create_task(breaker.call(slow_failure))
    await asyncio.sleep(0)
    breaker._succeeded()  # another call (begun before the pause) got an answer meanwhile
    release.set()
    with pytest.raises(ProviderUnavailable):
        await stale
    assert state(breaker) == "closed"  # one late failure, below failures_to_open


async def test_a_rejected_input_is_an_answer_and_a_caller_leaving_does_not_end_the_trial() -> None:
    clock = Clock()
    breaker = CircuitBreaker("embeddings", SETTINGS, clock)
    await fail(breaker, 3)
    clock.now += 1.0
    with pytest.raises(ProviderRejected):
        await breaker.call(rejected)
    assert state(breaker) == "closed"  # the provider answered: it is up

    await fail(breaker, 3)
    clock.now += 2.0
    answers = asyncio.Event()

    async def slow() -> str:
        await answers.wait()
        return "answer"

    caller = asyncio.create_task(breaker.call(slow))
    await asyncio.sleep(0)
    caller.cancel()  # a build's client went away
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert state(breaker) == "trial"  # the call goes on, and its answer decides
    answers.set()
    await asyncio.sleep(0.01)
    assert state(breaker) == "closed"
