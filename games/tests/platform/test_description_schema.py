"""One ``describe()`` schema: every registered game version's description is exactly what the OpenAPI documents
(``games.description_schema``: no key missing, none undocumented, each of its type), the catalogue's answer refers to
that schema, and the reference client reads only keys it documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from games.description_schema import BetOptionsSerializer, GameDescriptionSerializer, RemoteGameDescriptionSerializer
from games.engine.base import Game
from games.engine.registry import _GAMES, _load
from providers.data.simstudio_games import GAMES as STUDIO_GAMES

CLIENT = Path(settings.BASE_DIR) / "playclient" / "static" / "playclient"


def _all_versions() -> list[Game]:
    _load()
    return [g for versions in _GAMES.values() for g in versions.values() if hasattr(g, "bet_model")]


def _undocumented(value: dict[str, Any], schema: serializers.Serializer[Any], path: str) -> list[str]:
    """The keys of ``value`` (and of its nested objects a nested serializer documents) that ``schema`` lacks, and
    the required keys it lacks."""
    fields = schema.fields
    problems = [f"{path}{k}: not documented" for k in value if k not in fields]
    problems += [f"{path}{name}: missing" for name, f in fields.items() if f.required and name not in value]
    for name, f in fields.items():
        if isinstance(f, serializers.Serializer) and isinstance(value.get(name), dict):
            problems += _undocumented(value[name], f, f"{path}{name}.")
    return problems


@pytest.mark.parametrize("game", _all_versions(), ids=lambda g: f"{g.code}-v{g.version}")
def test_every_registered_game_versions_description_is_what_the_schema_documents(game):
    description = game.describe()
    assert _undocumented(description, GameDescriptionSerializer(), "") == []
    checked = GameDescriptionSerializer(data=description)
    assert checked.is_valid(), checked.errors  # each value of its documented type
    assert set(description["bet_options"]["money_fields"]) == set(game.money_bet_fields)


def test_an_undocumented_or_missing_key_is_found():
    description = _all_versions()[0].describe()
    wrong = {**description, "surprise": 1, "bet_options": {**description["bet_options"], "odd": 2}}
    del wrong["rules_cs"]
    assert sorted(_undocumented(wrong, GameDescriptionSerializer(), "")) == [
        "bet_options.odd: not documented",
        "rules_cs: missing",
        "surprise: not documented",
    ]


def test_the_catalogue_answer_documents_the_description_by_its_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    detail = components["GameDetail"]["properties"]["description"]
    assert detail.get("$ref") == "#/components/schemas/GameDescriptionAny" or {
        "$ref": "#/components/schemas/GameDescriptionAny"
    } in detail.get("allOf", []), detail
    assert components["GameDescriptionAny"]["oneOf"] == [
        {"$ref": "#/components/schemas/GameDescription"},
        {"$ref": "#/components/schemas/RemoteGameDescription"},
    ]
    described = components["GameDescription"]["properties"]
    assert {"bet_options", "declared", "rules_en", "paytable", "follows"} <= set(described)
    assert "money_fields" in components["BetOptions"]["properties"]
    assert set(components["BetOptions"]["required"]) == {"model", "money_fields", "stake"}


def _client_reads() -> tuple[set[str], set[str], set[str]]:
    """The keys the reference client reads from a game's description (``desc.X``, ``g.description.X``), from its
    bet options (a variable given ``desc.bet_options``) and from the items of its bet types."""
    top: set[str] = set()
    options: set[str] = set()
    bet_types: set[str] = set()
    for js in sorted(CLIENT.rglob("*.js")):
        text = js.read_text(encoding="utf-8")
        top |= set(re.findall(r"\b(?:desc|description)\??\.(\w+)", text))
        for found in re.finditer(r"\b(\w+) = desc\.bet_options\b", text):  # in that function
            body = text[found.end() : text.find("\n}\n", found.end())]
            options |= set(re.findall(rf"\b{found.group(1)}\??\.(\w+)", body))
        if "desc.bet_types" in text:  # roulette's bet types: x.type, bt.fields ... (x and bt are bet-type items)
            bet_types |= set(re.findall(r"\b(?:x|bt)\??\.(\w+)", text))
    return top, options, bet_types


def test_the_reference_client_reads_only_keys_the_schema_documents():
    top, options, bet_types = _client_reads()
    assert {"bet_options", "default_bet", "bet_types"} <= top  # the check sees what the client reads
    assert top <= set(GameDescriptionSerializer().fields), top - set(GameDescriptionSerializer().fields)
    assert {"lines", "coins", "coin_values"} <= options
    assert options <= set(BetOptionsSerializer().fields), options - set(BetOptionsSerializer().fields)
    documented = str(GameDescriptionSerializer().fields["bet_types"].help_text or "")
    shipped = {k for g in _all_versions() for item in g.describe().get("bet_types", []) for k in item}
    assert bet_types and bet_types <= shipped and all(re.search(rf"\b{k}\b", documented) for k in bet_types), (
        bet_types,
        shipped,
    )


@pytest.mark.django_db
def test_a_studio_games_stored_description_is_what_the_remote_schema_documents():
    from tests.kit.providers import make_game, make_provider

    make_provider()
    row = make_game()
    assert row.provider and _undocumented(row.description, RemoteGameDescriptionSerializer(), "") == []

    demo = {
        "remote": True,
        "provider": "sim",
        "plan_number": STUDIO_GAMES[0].number,
        "hourly_loss_derived": STUDIO_GAMES[0].hourly_loss_derived,
    }  # what providers.demo registers
    assert _undocumented(demo, RemoteGameDescriptionSerializer(), "") == []
    assert RemoteGameDescriptionSerializer(data=demo).is_valid()
