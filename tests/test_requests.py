"""One request type per use case: the API's body and the command's options are derived
from it (arena/services/requests.py), so a parameter's bounds, default and help are said
once and the three cannot drift apart."""

from __future__ import annotations

import pytest
import typer.main

from arena.base.errors import Invalid
from arena.cli.abtests import app as abtest_app
from arena.cli.scrimmages import scrimmage
from arena.cli.tournaments import app as tournament_app
from arena.services.abtests import AbTestRequest
from arena.services.requests import OPERATOR_ONLY, Request
from arena.services.scrimmages import ScrimmageRequest
from arena.services.tournaments import TournamentRequest
from arena.services.views.schemas import AbTestCreate, ScrimmageCreate, TournamentCreate

USE_CASES = [
    (TournamentRequest, TournamentCreate, tournament_app, "create"),
    (AbTestRequest, AbTestCreate, abtest_app, "create"),
    (ScrimmageRequest, ScrimmageCreate, scrimmage, None),
]
#: fields given on the wire in another shape (the rules as a preset and options)
RESHAPED = {"name", "rules"}


def _command(app: typer.Typer | object, name: str | None):
    """A command of a Typer app, or a Typer command function on its own."""
    if not isinstance(app, typer.Typer):
        single = typer.Typer()
        single.command()(app)
        app = single
    command = typer.main.get_command(app)
    return command.commands[name] if name else command  # Typer's own click: no isinstance


@pytest.mark.parametrize(("request_type", "body", "app", "name"), USE_CASES)
def test_the_api_body_is_the_request_but_the_operator_s_fields(
    request_type: type[Request], body, app, name
) -> None:
    operators = {
        key
        for key, field in request_type.model_fields.items()
        if field.json_schema_extra == OPERATOR_ONLY
    }
    assert set(body.model_fields) == set(request_type.model_fields) - operators
    for key in set(body.model_fields) - RESHAPED:
        asked, wire = request_type.model_fields[key], body.model_fields[key]
        assert (wire.annotation, wire.metadata, wire.default) == (
            asked.annotation,
            asked.metadata,
            asked.default,
        ), key


@pytest.mark.parametrize(("request_type", "body", "app", "name"), USE_CASES)
def test_the_command_s_options_carry_the_request_s_defaults_and_bounds(
    request_type: type[Request], body, app, name
) -> None:
    params = {param.name: param for param in _command(app, name).params}
    for key, field in request_type.model_fields.items():
        if key == "rules" or key not in params:
            continue  # the rules are a preset and --option pairs
        param = params[key]
        if field.description:
            assert getattr(param, "help", None), f"{key} has no help"
        if not field.is_required() and field.default is not None:
            assert param.default == field.default, key
        low = next((rule.ge for rule in field.metadata if hasattr(rule, "ge")), None)
        if low is not None:
            assert getattr(param, "min", None) == low, key
    missing = set(request_type.model_fields) - set(params) - {"rules", "field"}
    assert not missing, f"the command leaves out {missing}"


def test_a_wrong_request_is_refused_with_each_field_said() -> None:
    with pytest.raises(Invalid, match=r"games: Input should be greater than or equal to 1"):
        TournamentRequest.asked(name="t", bots=["a", "b"], games=0)
    with pytest.raises(Invalid, match=r"format: Value error, unknown format 'bracket'"):
        TournamentRequest.asked(name="t", bots=["a", "b"], format="bracket")
