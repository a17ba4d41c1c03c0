"""Request dependencies on what the lifespan built: settings and providers."""

from typing import Annotated

from fastapi import Depends, Request

from app.core.config import Settings
from app.providers.container import Providers


async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _providers(request: Request) -> Providers:
    providers: Providers = request.app.state.providers
    return providers


SettingsDep = Annotated[Settings, Depends(_settings)]
ProvidersDep = Annotated[Providers, Depends(_providers)]
