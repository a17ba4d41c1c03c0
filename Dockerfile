# Context Engine image: `docker compose up` runs it next to PostgreSQL with pgvector.
# The service runs from the source tree in /srv (app/, alembic/, alembic.ini), because the
# migrations are found relative to the package: app/core/migrations.py -> /srv/alembic.ini.

# --- builder: a virtualenv with the project and its dependencies --------------------------------
FROM python:3.11-slim AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH

RUN python -m venv /opt/venv

WORKDIR /build

# Dependencies first, in their own layer, so that a code change does not reinstall them: install
# the project with an empty `app` package, then replace it with the real one.
COPY pyproject.toml README.md ./
RUN mkdir app && touch app/__init__.py \
    && pip install . \
    && rm -rf app build ./*.egg-info

COPY app ./app
RUN pip install --no-deps --force-reinstall .

# --- runtime ------------------------------------------------------------------------------------
FROM python:3.11-slim AS runtime

# PYTHONPATH=/srv puts the source tree ahead of the installed copy of `app` in site-packages, so
# every command imports /srv/app (and finds /srv/alembic.ini) whatever its working directory.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/srv \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CE_HOST=0.0.0.0 \
    CE_PORT=8000 \
    CE_DATA_DIR=/data

RUN groupadd --system --gid 10001 ce \
    && useradd --system --uid 10001 --gid ce --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin ce \
    && mkdir /data \
    && chown ce:ce /data

COPY --from=builder /opt/venv /opt/venv

WORKDIR /srv
COPY alembic.ini ./
COPY alembic ./alembic
COPY app ./app
# Compile once here: the service user cannot write __pycache__ under /srv.
RUN python -m compileall -q app alembic

USER ce

EXPOSE 8000

# Liveness only; compose checks /readyz (database reachable, schema at head) for the API.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('CE_PORT', '8000') + '/healthz', timeout=4)"]

CMD ["python", "-m", "app", "serve"]
