"""Request dependencies of the session routes."""

from typing import Annotated

from fastapi import Depends, Request

from app.sessions.peers import SessionPeers


async def _peers(request: Request) -> SessionPeers:
    peers: SessionPeers = request.app.state.session_peers
    return peers


Peers = Annotated[SessionPeers, Depends(_peers)]
