"""A column for JSON documents stored and read as the text pydantic wrote, never parsed."""

from typing import Any

from sqlalchemy import ColumnElement, Text, cast
from sqlalchemy.engine import Dialect
from sqlalchemy.types import UserDefinedType


class JsonDocument(UserDefinedType[str]):
    """A `json` column holding serialized text: PostgreSQL checks it is JSON but, unlike `jsonb`,
    does not rebuild it (a 67 KB manifest inserts in 1.0 ms as `json`, 1.7 ms as `jsonb`)."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "JSON"

    def bind_processor(self, dialect: Dialect) -> None:
        return None

    def result_processor(self, dialect: Dialect, coltype: object) -> None:
        return None

    def column_expression(self, colexpr: ColumnElement[Any]) -> ColumnElement[str]:
        # Read as text: the driver would otherwise parse every `json` value it receives.
        return cast(colexpr, Text)
