"""The inspector: server-rendered pages of an agent's builds and memories, for people."""
