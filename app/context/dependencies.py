"""Request dependencies of the context routes."""

from typing import Annotated

from fastapi import Depends, Request

from app.context.engine import ContextEngine


async def _engine(request: Request) -> ContextEngine:
    engine: ContextEngine = request.app.state.context_engine
    return engine


Engine = Annotated[ContextEngine, Depends(_engine)]
