# Context Engine: `make run` serves on the embedded database, `make test` checks everything.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run worker migrate test lint typecheck openapi clean

$(STAMP): pyproject.toml
	@test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	@echo "Installing into $(VENV) (first run takes about a minute)..."
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --progress-bar on -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m app serve

worker: $(STAMP)
	$(BIN)/python -m app worker

migrate: $(STAMP)
	$(BIN)/python -m app migrate

openapi: $(STAMP)
	$(BIN)/python -m app openapi

lint: $(STAMP)
	$(BIN)/ruff check app tests alembic bench
	$(BIN)/ruff format --check app tests alembic bench

typecheck: $(STAMP)
	$(BIN)/mypy app tests alembic bench

test: lint typecheck
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
