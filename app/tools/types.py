"""Plain data of the tools: what a call may read, and what a tool hands back (no I/O here)."""

import uuid
from dataclasses import dataclass
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.context.engine import ContextEngine
from app.core.config import ToolSettings
from app.providers.tokenizer import Tokens
from app.tenants.models import Tenant

# What a tool's result can refer to; efforts join when they exist.
ReferenceKind = Literal["memory", "message", "effort"]


@dataclass(frozen=True)
class Reference:
    """Something a tool's result shows: a memory, a session's message or an effort."""

    kind: ReferenceKind
    id: uuid.UUID


@dataclass(frozen=True)
class ToolCall:
    """What one call may read: its transaction, the process's engine (providers, search
    settings, corpus figures), the tenant and agent, the target model's tokenizer, the tools'
    settings."""

    session: AsyncSession
    engine: ContextEngine
    tenant: Tenant
    agent: Agent
    tokens: Tokens
    settings: ToolSettings


@dataclass(frozen=True)
class Item:
    """One entry of a result (a line or a paragraph) and what it shows."""

    text: str
    reference: Reference | None = None


@dataclass(frozen=True)
class Section:
    """A titled part of a result, its entries best first; `empty` is said when none was found."""

    title: str
    items: tuple[Item, ...]
    empty: str


@dataclass(frozen=True)
class ToolOutput:
    """What a tool found, before it is held to the call's tokens: sections, then a closing
    hint (e.g. which tool gives more)."""

    sections: tuple[Section, ...]
    hint: str = ""


@dataclass(frozen=True)
class Fitted:
    """A result held to its tokens: the text, its token count, what it shows, and how many
    entries were left out (`cut`: one was shortened to fit)."""

    text: str
    tokens: int
    references: tuple[Reference, ...] = ()
    left_out: int = 0
    cut: bool = False
