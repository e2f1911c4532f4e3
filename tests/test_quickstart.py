"""The quickstart of docs/player-api.md runs, step by step, through a client GENERATED from the live
OpenAPI schema (openapi-python-client) against a live server.

The requests are the document's own: each ``<!-- quickstart: name -->`` block (method, path, body) is parsed and
sent as written, its ``{{name}}`` placeholders filled from earlier answers; the test fails if a block names an
operation the schema does not have, if its body no longer validates, if the generated client cannot parse an answer,
or if a block is never sent. So neither the document nor the schema can go stale.

The client is generated into ``.data/openapi-client/<schema hash>/`` (not committed) and reused while the schema is
the same (generation takes seconds).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import re
import subprocess
import sys
import typing
import urllib.request
import uuid
from datetime import UTC, date, datetime
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.conf import settings

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.process]  # runs the client generator

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "player-api.md"
CACHE = ROOT / ".data" / "openapi-client"
PACKAGE = "platform_client"
STEP = re.compile(r"<!-- quickstart: (\w+) -->\n```http\n(.*?)\n```", re.S)
START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
PACE_SECONDS = 3  # 2 s between starts (GP §7(9)) and a margin


def doc_steps() -> dict[str, tuple[str, str, dict[str, str], Any]]:
    """name -> (method, path template, query, body) of every quickstart block of the document, in order."""
    steps: dict[str, tuple[str, str, dict[str, str], Any]] = {}
    for name, text in STEP.findall(DOC.read_text()):
        first, _, rest = text.partition("\n")
        method, target = first.split(" ", 1)
        path, _, query = target.partition("?")
        params = dict(pair.split("=", 1) for pair in query.split("&") if pair)
        assert name not in steps, f"two quickstart blocks are called {name}"
        steps[name] = (method, path, params, json.loads(rest) if rest.strip() else None)
    return steps


def generated_client(schema_text: str) -> Any:
    """The client package generated from ``schema_text`` (cached by its hash)."""
    digest = hashlib.sha256(schema_text.encode()).hexdigest()[:16]
    home = CACHE / digest
    if not (home / PACKAGE / "client.py").exists():
        home.mkdir(parents=True, exist_ok=True)
        (home / "schema.json").write_text(schema_text)
        (home / "config.yaml").write_text(
            f"package_name_override: {PACKAGE}\nproject_name_override: platform-client\npost_hooks: []\n"
        )
        tool = Path(sys.executable).parent / "openapi-python-client"
        done = subprocess.run(
            [
                str(tool),
                "generate",
                "--path",
                str(home / "schema.json"),
                "--output-path",
                str(home / PACKAGE),
                "--meta",
                "none",
                "--config",
                str(home / "config.yaml"),
                "--overwrite",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0 and (home / PACKAGE / "client.py").exists(), done.stdout + done.stderr
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]  # another schema's client from an earlier test
    sys.path.insert(0, str(home))
    try:
        return importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(home))


def _fill(value: Any, state: dict[str, Any]) -> Any:
    if isinstance(value, str):
        whole = re.fullmatch(r"\{\{(\w+)\}\}", value)
        if whole:
            return state[whole.group(1)]
        return re.sub(r"\{\{(\w+)\}\}", lambda m: str(state[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: _fill(v, state) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, state) for v in value]
    return value


def _typed(annotation: Any, value: str) -> Any:
    """A query value as the generated function's parameter type (an enum, a date, an integer)."""
    for candidate in typing.get_args(annotation) or (annotation,):
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return candidate(value)
        if candidate is date:
            return date.fromisoformat(value)
        if candidate is int:
            return int(value)
    return value


class Quickstart:
    """Sends the document's blocks through the generated client."""

    def __init__(self, base_url: str, schema: dict[str, Any], package: Any):
        self.steps = doc_steps()
        self.sent: set[str] = set()
        self.state: dict[str, Any] = {}
        self.base_url, self.package = base_url, package
        self.operations = {
            (m.upper(), p): op["operationId"]
            for p, item in schema["paths"].items()
            for m, op in item.items()
            if isinstance(op, dict) and "operationId" in op
        }
        self.modules = {
            info.name.rsplit(".", 1)[-1]: info.name
            for info in _walk(package)
            if info.name.startswith(f"{PACKAGE}.api.")
        }
        self.token: str | None = None

    def client(self) -> Any:
        from_pkg = importlib.import_module(f"{PACKAGE}.client")
        headers = {"Accept-Language": "en"}
        if self.token:
            return from_pkg.AuthenticatedClient(
                base_url=self.base_url,
                token=self.token,
                prefix="Token",
                headers=headers,
                raise_on_unexpected_status=True,
            )
        return from_pkg.Client(base_url=self.base_url, headers=headers, raise_on_unexpected_status=True)

    def send(self, name: str, status: int | tuple[int, ...] = (200, 201, 202), **path: Any) -> Any:
        """Send block ``name``; returns the answer's JSON (and checks the generated model parsed it)."""
        method, template, query, body = self.steps[name]
        operation = self.operations.get((method, "/api/v1" + template))
        assert operation, f"quickstart step {name}: {method} {template} is not an operation of the schema"
        function = importlib.import_module(self.modules[operation]).sync_detailed
        hints = typing.get_type_hints(function)
        kwargs: dict[str, Any] = {"client": self.client()}
        for param in re.findall(r"\{(\w+)\}", template):
            kwargs[param] = path[param]
        for key, value in query.items():
            arg = key + "_" if key in ("from",) else key
            kwargs[arg] = _typed(hints[arg], _fill(value, self.state))
        if body is not None:
            model = next(t for t in typing.get_args(hints["body"]) or (hints["body"],) if hasattr(t, "from_dict"))
            kwargs["body"] = model.from_dict(_fill(body, self.state))
        if "idempotency_key" in inspect.signature(function).parameters:
            kwargs["idempotency_key"] = str(uuid.uuid4())
        response = function(**kwargs)
        expected = status if isinstance(status, tuple) else (status,)
        assert response.status_code in expected, (name, response.status_code, response.content[:600])
        self.sent.add(name)
        if not response.content:
            return None
        assert response.parsed is not None, (name, "the generated client could not read the answer")
        return json.loads(response.content)


def _walk(package: Any) -> list[Any]:
    import pkgutil

    return list(pkgutil.walk_packages(package.__path__, package.__name__ + "."))


@pytest.fixture
def platform(settings, live_server):
    """The live server as a developer's sandbox: games synced and approved, the sandbox payment provider, tasks
    run at once, the development mailbox on."""
    from config.celery import app
    from games.services import games_sync
    from tests.kit.games import approve_current_games

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.WALLET_SANDBOX_ENABLED = True
    settings.EMAIL_BACKEND = "core.mail.SandboxEmailBackend"
    settings.DEV_MAILBOX_ENABLED = True
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MEDIA_ROOT = str(settings.BASE_DIR / ".data" / "test-media")
    games_sync()
    approve_current_games()
    yield live_server
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


def free_spin_seeds(limit: int = 5000) -> list[int]:
    """Seeds whose first draws make Kobushi's example bet start free spins (the engine alone)."""
    from core.rng import SeededRNG
    from games.engine.registry import get_game
    from games.serializers import engine_bet_example

    game = get_game("kobushi")
    example = engine_bet_example(game)
    assert example is not None
    bet = game.validate_bet(example)
    return [
        seed
        for seed in range(limit)
        if (game.start(bet, SeededRNG(seed)).get("pending") or {}).get("type") == "free_spin"
    ][:20]


def finish(q: Quickstart, rnd: dict[str, Any]) -> dict[str, Any]:
    """Send actions (one of ``pending.options``; "collect" where offered) until the round is finished."""
    for _ in range(300):
        if rnd["status"] != "in_progress":
            return rnd
        options = rnd["pending"]["options"]
        q.state["option"] = next((o for o in options if o.get("type") == "collect"), options[0])
        rnd = q.send("action", round_id=rnd["id"])
    raise AssertionError(f"round {rnd['id']} did not finish")


def test_the_quickstart_runs_through_a_client_generated_from_the_schema(platform):
    from core.rng import SeededRNG, use_rng
    from tests.kit.accounts import make_register_record

    with urllib.request.urlopen(f"{platform.url}/api/schema?format=json", timeout=60) as answer:
        schema_text = answer.read().decode()
    q = Quickstart(platform.url, json.loads(schema_text), generated_client(schema_text))
    assert q.steps, "no quickstart blocks in docs/player-api.md"

    with time_machine.travel(START, tick=False) as clock:
        # 1-2. documents, registration (the sandbox population register knows the document's person)
        q.state.update(q.send("documents"))
        make_register_record(q.steps["register"][3])
        registered = q.send("register", 201)
        assert registered["status"] == "temporary"
        # 3. the e-mail link, read from the development mailbox
        email = q.send("mailbox_email")["emails"][0]
        q.state["token"] = next(link for link in email["links"] if "confirm-email?token=" in link).split("token=")[1]
        assert email["links"][0].startswith(platform.url)  # PUBLIC_BASE_URL
        assert q.send("confirm")["status"] == "password_sent"
        # 4. the first password by SMS, the change, the login
        sms = q.send("mailbox_sms")["sms"][0]["text"]
        found = re.search(r"first password: (\S+)", sms)
        assert found, sms
        q.state["first_password"] = found.group(1)
        first = q.send("login_first")
        assert first["must_change_password"] is True
        q.token = first["token"]
        q.send("password")
        q.token = q.send("login")["token"]
        # 5. self-limits: one money limit, one in minutes, the other five declined
        assert q.send("limit_money", kind="technical", limit_type="daily_stake")["value"]["amount"] == 100000
        assert q.send("limit_minutes", kind="technical", limit_type="daily_time")["value"] == 240
        for limit_type in ("monthly_stake", "daily_loss", "monthly_loss", "monthly_logins", "pause_after_logout"):
            assert q.send("limit_decline", kind="technical", limit_type=limit_type)["declined"] is True
        # 6. a payment method, a deposit through the sandbox
        q.state["method_id"] = q.send("payment_method", 201)["id"]
        deposit = q.send("deposit", 201)
        assert (
            deposit["instructions"]["sandbox_pay_url"]
            == f"{platform.url}/api/v1/wallet/sandbox/deposits/{deposit['id']}/pay"
        )
        q.send("sandbox_pay", 202, id=deposit["id"])
        assert q.send("overview")["balance"]["amount"] == 200000
        # 7. every game of the catalogue, one round each, played to the end
        games = [g["code"] for g in q.send("catalogue")["results"]]
        assert "kobushi" in games and "european_roulette" in games
        played: dict[str, dict[str, Any]] = {}
        for code in games:
            q.state["code"] = code
            q.state["bet_example"] = q.send("game", code=code)["game"]["bet_example"]
            clock.shift(PACE_SECONDS)
            played[code] = finish(q, q.send("round", 201))
            assert played[code]["status"] == "finished", code
        # 8. a Kobushi free-spin round: seeded draws (as the engine's own tests do) make the free spins come now
        q.state["code"] = "kobushi"
        q.state["bet_example"] = q.send("game", code="kobushi")["game"]["bet_example"]
        free, spins = None, 0
        for seed in free_spin_seeds():
            clock.shift(PACE_SECONDS)
            with use_rng(SeededRNG(seed)):
                rnd = q.send("round", 201)
                if (rnd.get("pending") or {}).get("type") == "free_spin":
                    free = rnd
                    while rnd["status"] == "in_progress":  # each free spin is one action: {"type": "spin"}
                        spins += rnd["pending"]["type"] == "free_spin"
                        options = rnd["pending"]["options"]
                        q.state["option"] = next((o for o in options if o.get("type") == "collect"), options[0])
                        rnd = q.send("action", round_id=rnd["id"])
                    break
                finish(q, rnd)
        assert free is not None, "no Kobushi round started free spins"
        assert rnd["status"] == "finished" and spins >= 1 and len(rnd["actions"]) >= spins
        q.state["round_id"] = rnd["id"]
        # 9. recall and verify
        assert q.send("rounds")["results"][0]["id"] == rnd["id"]
        assert q.send("recall", round_id=rnd["id"])["bet"]["coin_value"]["currency"] == "CZK"
        assert q.send("verify", round_id=rnd["id"])["outcome"] == "match"
        # 10. a complaint about the free-spin round
        complaint = q.send("complaint", 201)
        assert complaint["reference"].startswith("RK-") and complaint["remedy_amount_requested"]["amount"] == 5000
        # 11. statistics (default period), the panic button
        assert len(q.send("statistics")["days"]) == 30
        assert q.send("panic", 201)["ends_at"]
        q.send("overview", 401)  # the session ended at once

    assert q.sent == set(q.steps), f"quickstart blocks never sent: {sorted(set(q.steps) - q.sent)}"


def test_every_operation_the_quickstart_names_is_in_the_schema_with_its_documented_method():
    """Cheap companion of the run above: the blocks parse, and name operations of the schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    steps = doc_steps()
    assert len(steps) >= 25
    for name, (method, path, _, _) in steps.items():
        assert method.lower() in schema["paths"].get("/api/v1" + path, {}), (name, method, path)
    assert settings.BASE_DIR  # the document sits in the repository (docs/player-api.md)
