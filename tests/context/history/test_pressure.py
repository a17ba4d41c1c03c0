"""Refresh's token pressure with a session: the build's context, the messages it sent and those
appended since against available. Pure."""

from app.context.history.pressure import encoding_of, history_pressure


def test_without_an_appended_message_there_is_no_pressure() -> None:
    assert history_pressure(100, 60, 40, []) is False


def test_appended_messages_are_pressure_only_when_they_no_longer_fit() -> None:
    # 50 of context, 30 sent (their priming included): room for 20 more tokens of messages.
    assert history_pressure(100, 50, 30, [10, 10]) is False
    assert history_pressure(100, 50, 30, [10, 11]) is True


def test_the_replys_priming_is_paid_once_when_no_message_was_sent() -> None:
    assert history_pressure(100, 90, 0, [7]) is False  # 90 + 3 + 7
    assert history_pressure(100, 90, 0, [8]) is True


def test_a_stored_encoding_is_read_by_its_name() -> None:
    assert encoding_of("cl100k_base", "o200k_base") == "cl100k_base"
    assert encoding_of("unknown", "o200k_base") == "o200k_base"
