"""Token counts of long texts, kept while they fit a bound on the characters held.

A session's long messages (plans, tool output) are counted in every build that reads them, and
tokenizing a few kilobytes costs a few hundred microseconds each time. Looking a text up costs
hashing and comparing it, a few microseconds. Short texts have their own cache by number
(`tokenizer.py`); these are held by their length, so a bound in characters keeps the memory
they take in check whatever their sizes.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

MAX_HELD_CHARS = 16_000_000  # about 16 MiB of ASCII text, 64 MiB at most
MAX_TEXT_CHARS = 200_000  # longer texts are rare and counted each time

_Encoding = TypeVar("_Encoding", bound=Hashable)


class LongCounts(Generic[_Encoding]):
    """Least recently used counts of long texts, by (text, encoding); safe across threads."""

    def __init__(
        self, count: Callable[[str, _Encoding], int], max_chars: int = MAX_HELD_CHARS
    ) -> None:
        self._count = count
        self._max_chars = max_chars
        self._held: OrderedDict[tuple[str, _Encoding], int] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def count(self, text: str, encoding: _Encoding) -> int:
        if len(text) > MAX_TEXT_CHARS:
            return self._count(text, encoding)
        key = (text, encoding)
        with self._lock:
            found = self._held.get(key)
            if found is not None:
                self._held.move_to_end(key)
                return found
        counted = self._count(text, encoding)  # outside the lock: tiktoken frees the GIL
        with self._lock:
            if key not in self._held:
                self._held[key] = counted
                self._chars += len(text)
            while self._chars > self._max_chars:
                (old, _encoding), _count = self._held.popitem(last=False)
                self._chars -= len(old)
        return counted
