"""A use case's request: one description of its parameters (types, defaults, bounds and
help), from which the API's body and the command line's options are derived
(``Request.body``; ``arena.cli.options.option``), so a parameter is added, bounded or
explained in one place."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, create_model

from arena.base.errors import Invalid

#: a field only the operator sets (the command line's): the API's body leaves it out
OPERATOR_ONLY: dict[str, JsonValue] = {"operator_only": True}


def operator_only(default: Any, description: str) -> Any:
    """A field the operator may set and an owner, through the API, may not."""
    return Field(default=default, description=description, json_schema_extra=OPERATOR_ONLY)


class Request(BaseModel):
    """The parameters of a use case, checked as they are made."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    @classmethod
    def asked(cls, **fields: Any) -> Self:
        """The request, or ``Invalid`` saying each field that is wrong (as the API's 422)."""
        try:
            return cls(**fields)
        except ValidationError as error:
            raise Invalid(said(error)) from None

    @classmethod
    def body(cls, name: str, wire: dict[str, tuple[Any, Any]] | None = None) -> type[BaseModel]:
        """The API's body for this request: every field but the operator's, as it is, or
        as ``wire`` gives it (a field's type on the wire and its ``Field``, e.g. rules as
        a preset and options); ``from_body`` makes the request from it."""
        wire = wire or {}
        fields: dict[str, Any] = {}
        for key, info in cls.model_fields.items():
            if info.json_schema_extra == OPERATOR_ONLY:
                continue
            fields[key] = wire.get(key, (info.annotation, info))
        made: type[BaseModel] = create_model(name, __doc__=cls.__doc__, **fields)
        return made

    @classmethod
    def defaults(cls, key: str) -> Any:
        """The field's default (the command line's option's)."""
        return cls.model_fields[key].get_default(call_default_factory=True)


def said(error: ValidationError) -> str:
    """A validation error in one line: each wrong field and why."""
    return "; ".join(
        f"{'.'.join(map(str, problem['loc'])) or 'request'}: {problem['msg']}"
        for problem in error.errors()
    )
