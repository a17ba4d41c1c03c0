"""The first API key, so that a newcomer's `make run` works without reading any source."""

import asyncio
import os
from pathlib import Path

from app.core.db import Database
from app.core.logging import announce
from app.tenants.service import create_key, has_keys, lock_bootstrap

KEY_FILE = "api-key"


async def ensure_first_key(database: Database, data_dir: Path) -> None:
    """Issue a key for a `default` tenant when the database has none; print it and keep it."""
    key_file = data_dir / KEY_FILE
    async with database.sessionmaker.begin() as session:
        # Replicas starting together on an empty database issue one key, not one each.
        await lock_bootstrap(session)
        if await has_keys(session):
            if await asyncio.to_thread(key_file.exists):
                announce(f"API key: see {key_file}", "api_key.kept", key_file=str(key_file))
            return
        issued = await create_key(session, "default", "first key")
        # Written before the commit: a key that could not be kept is not issued either.
        await asyncio.to_thread(_keep, key_file, issued.key)
    # Shown to the person at the terminal; a log collector gets where it is, not the key.
    announce(
        f"\nYour API key (tenant 'default'; also saved in {key_file}):\n\n    {issued.key}\n\n"
        f"Use it as: Authorization: Bearer {issued.key}\n",
        "api_key.issued",
        tenant="default",
        key_file=str(key_file),
    )


def _keep(key_file: Path, key: str) -> None:
    key_file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key + "\n")
