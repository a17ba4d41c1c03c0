"""What the speed benchmark measures: the seed, the sizes, the agents, and each pass's size."""

from pydantic import JsonValue

SEED = 20260101
SIZES = (1_000, 10_000, 100_000)
NEIGHBOUR_AGENTS = {"team-b": 1_000, "team-c": 1_000}
MEASURED = "team-a"
BUDGET = 4_000
WRITERS = 4
QUERIES = 200
APPENDED = 100  # builds whose input was appended to a session just before
CONCURRENT_CLIENTS = 16
BUILDS_PER_CLIENT = 30
LAG_SAMPLE = 50
# What the CPU of the builds at 16 clients is shared out among, per build.
CPU_PARTS = ("api", "postgres", "client")
IDLE_WRITES = 10
# The same builds with a session: a scripted conversation of this many messages, and a window
# whose memory share is BUDGET (a fifth of the 20,000 tokens available), the rest the history's.
SESSION = "on-call"
SESSION_MESSAGES = 200
WINDOW: dict[str, JsonValue] = {
    "total": 20_500,
    "system_reserve": 500,
    "tools_reserve": 0,
    "memory_fraction": 0.2,
    "learnings_fraction": 0.0,
}
