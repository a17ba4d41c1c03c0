""".env.example documents exactly the settings of `Settings`, each with its real default."""

import functools
import os
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from app.core.config import Settings
from app.core.processes import usable_cores

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"
PREFIX = Settings.model_config.get("env_prefix", "")
DELIMITER = Settings.model_config.get("env_nested_delimiter") or "__"

_ASSIGNMENT = re.compile(r"^# (CE_[A-Z0-9_]+)=(.*)$")
_MENTION = re.compile(r"\bCE_[A-Z0-9_]+")

FieldPath = tuple[str, ...]


def _field_paths(model: type[BaseModel], parent: FieldPath = ()) -> list[FieldPath]:
    """Every leaf setting, descending into nested groups (fields typed as a model)."""
    paths: list[FieldPath] = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            paths.extend(_field_paths(annotation, (*parent, name)))
        else:
            paths.append((*parent, name))
    return paths


def _env_name(path: FieldPath) -> str:
    return PREFIX + DELIMITER.join(part.upper() for part in path)


SETTINGS: dict[str, FieldPath] = {_env_name(path): path for path in _field_paths(Settings)}


def _lines() -> list[str]:
    return ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()


def _assignments() -> list[tuple[int, str, str]]:
    """(line index, variable, value) of every commented-out `# CE_...=value` line."""
    found: list[tuple[int, str, str]] = []
    for index, line in enumerate(_lines()):
        match = _ASSIGNMENT.match(line)
        if match:
            found.append((index, match.group(1), match.group(2)))
    return found


def test_walk_finds_nested_settings() -> None:
    assert PREFIX == "CE_"
    assert "CE_DATA_DIR" in SETTINGS
    assert "CE_DATABASE__URL" in SETTINGS
    assert "CE_DATABASE" not in SETTINGS


def test_every_setting_is_documented_once_with_a_comment() -> None:
    lines = _lines()
    names = [name for _, name, _ in _assignments()]
    assert sorted(set(SETTINGS) - set(names)) == []
    assert sorted({name for name in names if names.count(name) > 1}) == []
    for index, name, _ in _assignments():
        comment = lines[index - 1] if index else ""
        assert comment.startswith("# "), f"{name} needs a one-line comment above it"
        assert not _ASSIGNMENT.match(comment), f"{name} needs a one-line comment above it"


def test_mentions_no_unknown_variable() -> None:
    mentioned = set(_MENTION.findall(ENV_EXAMPLE.read_text(encoding="utf-8")))
    assert sorted(mentioned - set(SETTINGS)) == []
    assert all(line == "" or line.startswith("#") for line in _lines()), (
        "every line stays commented out, so that copying the file changes nothing"
    )


def test_documented_defaults_are_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(PREFIX):
            monkeypatch.delenv(name)
    defaults = Settings(_env_file=None)
    documented = {name: value for _, name, value in _assignments() if name in SETTINGS}
    for name, value in documented.items():
        if value == "":
            default: object = functools.reduce(getattr, SETTINGS[name], defaults)
            assert default is None, f"{name} is shown empty but defaults to {default!r}"
        else:
            monkeypatch.setenv(name, value)
    assert Settings(_env_file=None).model_dump() == defaults.model_dump()


def test_serve_runs_one_process_per_usable_core_unless_set(tmp_path: Path) -> None:
    assert Settings(_env_file=None, api={"workers": 3}).api.processes() == 3
    cores = usable_cores()
    assert Settings(_env_file=None, api={}).api.processes() == cores >= 1
    limit = tmp_path / "cpu.max"
    limit.write_text("150000 100000\n")  # a container allowed 1.5 cores gets 2 processes
    assert usable_cores(limit) == min(cores, 2)
    limit.write_text("max 100000\n")
    assert usable_cores(limit) == cores
