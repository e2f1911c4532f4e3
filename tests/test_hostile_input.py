"""Standing suite: hostile input (schemathesis against the app's own OpenAPI schema).

The schema is drf-spectacular's, loaded through the WSGI application in-process (``/api/schema``). Every operation
in it except the ones that end the player's session (``SESSION_ENDING`` below) is called by a registered ACTIVE
player with a funded wallet, a verified payment method and one record of every kind a path can name, with data
generated from the schema: schemathesis' coverage phase (boundary values, wrong types, missing and unexpected
parameters, unexpected methods) and its fuzzing phase (positive and negative data). A path parameter is, now and
then, one of the player's own records, so that the success responses of detail endpoints are checked too.

Checks on every response:
* ``not_a_server_error``: no 5xx (no request may produce a 500, nor a 503 from a broken transaction);
* ``response_schema_conformance``: a documented status carries the documented body;
* ``content_type_conformance``: ... with a documented content type (JSON; the CSV statement; an attachment's file);
* ``error_shape`` (ours): every 4xx is the platform's one error shape (core/errors.py) with a code and the
  message in Czech and English.
``status_code_conformance`` is not run: the schema documents the success responses only (each app's errors are
its ``errors.py``), so every refusal would count as a failure; nor ``negative_data_rejection``: list endpoints
ignore unknown query parameters and read a ``page_size`` out of bounds as the default, on purpose (DRF).

Added so that the suite would have found the review's N-6, N-7 and N-10:
* nesting depth: every operation with a JSON body gets bodies nested 33 (one past ``core.parsers.MAX_DEPTH``), 1,000
  and 100,000 levels deep (arrays and objects), as the player and anonymously: every answer a 4xx in the error shape;
* NUL bytes: a NUL in every query parameter (400 ``request.invalid``), every path parameter and every static path
  segment (404), for every operation;
* staff operations (the views behind ``core.permissions.IsStaff``) are fuzzed as each staff identity in
  ``STAFF_ROLES`` too, not only refused to the player: the integrator adds one entry per staff role;
* running jackpot levels (Kobushi's and a central must-hit level), so that the display's answers are checked against
  its schema (``value_at_coin`` was declared required and is absent without ``?coin_value=``).

Short run (``make test``): ``SHORT_EXAMPLES`` generated cases per operation in the fuzzing phase plus the
coverage phase's fixed cases, a fixed seed, derandomized. Long run: ``make fuzz`` (``FUZZ_EXAMPLES=500``, a new
seed each run unless ``FUZZ_SEED``; the seed is printed, so a failure is reproduced with ``FUZZ_SEED=<seed>``).
A summary line (operations, cases, failures, statuses) is printed at the end of the module.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import hypothesis
import pytest
import schemathesis
import time_machine
from django.core.cache import cache
from hypothesis import HealthCheck
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from config.wsgi import application
from tests.kit.clients import one_connection_across_requests

# Operations that end the player's session or the account itself: each run of them would leave the rest of the
# operation's cases talking to a logged-out, closed or excluded player. Each has its own tests:
SESSION_ENDING = {
    # ends the session, revokes the token: accounts/tests/test_credentials.py
    # (test_login_opens_a_tracked_session_and_logout_ends_it, test_logout_works_while_the_password_change_is_pending)
    "POST /api/v1/accounts/auth/logout",
    # revokes the player's other tokens and sessions: accounts/tests/test_credentials.py
    # (test_the_first_password_must_be_changed_before_anything_else_works); garbage bodies:
    # accounts/tests/test_api_robustness.py::test_garbage_never_causes_a_server_error
    "POST /api/v1/accounts/auth/password",
    # cancels the registration (GP §4(10)): accounts/tests/test_lifecycle.py
    # (test_a_player_cancels_the_registration_the_balance_is_settled_and_the_account_closes,
    #  test_a_second_cancellation_and_an_unknown_settlement_are_refused)
    "POST /api/v1/accounts/me/closure",
    # withdrawing a mandatory consent cancels the registration (GP §12(6)): accounts/tests/test_personal_data.py
    # (test_withdrawing_the_mandatory_consent_cancels_the_registration,
    #  test_marketing_consent_can_be_given_and_withdrawn_and_the_account_stays_open)
    "POST /api/v1/accounts/me/consents/{kind}/withdraw",
    # the panic button: 48 h exclusion and logout: limits/tests/test_api.py
    # (test_the_panic_button_excludes_at_once_and_shows_when_it_ends), limits/tests/test_exclusion.py
    "POST /api/v1/limits/panic",
    # self-listing in the register of excluded persons, logout: limits/tests/test_api.py
    # (test_a_self_listing_request_is_accepted_for_at_least_a_year), limits/tests/test_exclusion.py
    "POST /api/v1/limits/self-listing",
}

SHORT_EXAMPLES = 15
SHORT_SEED = 13
LONG = "FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", SHORT_EXAMPLES))
SEED = (
    int(os.environ["FUZZ_SEED"])
    if os.environ.get("FUZZ_SEED")
    else (random.SystemRandom().randrange(2**32) if LONG else SHORT_SEED)
)

CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": SEED,
        "generation": {
            "max-examples": EXAMPLES,
            "deterministic": not LONG,  # the short run: the same cases every time
            "with-security-parameters": False,  # the player's token is sent with every case (below)
            "database": "none",  # nothing stored between runs: a failure is reproduced from the printed seed
        },
        "phases": {"stateful": {"enabled": False}},
    }
)
full_schema = schemathesis.openapi.from_wsgi("/api/schema", application, config=CONFIG)
schema = full_schema.exclude(func=lambda ctx: f"{ctx.operation.method.upper()} {ctx.operation.path}" in SESSION_ENDING)

# Frozen clock (a Tuesday in Prague, outside any DST change)
NOW = datetime(2026, 3, 10, 10, 0, tzinfo=ZoneInfo("Europe/Prague"))

# (path prefix, parameter) -> the key of the player's own record in ``OWN``
OWN_PARAMETERS = {
    ("/api/v1/wallet/payment-methods/", "id"): "method",
    ("/api/v1/wallet/deposits/", "id"): "deposit",
    ("/api/v1/wallet/sandbox/deposits/", "id"): "deposit",
    ("/api/v1/wallet/withdrawals/", "id"): "withdrawal",
    ("/api/v1/wallet/staff/players/", "player_id"): "player_id",
    ("/api/v1/games/rounds/", "round_id"): "round",
    ("/api/v1/games/catalogue/", "code"): "game",
    ("/api/v1/complaints", "reference"): "complaint",
    ("/api/v1/complaints", "attachment_id"): "attachment",
    ("/api/v1/limits/self-limits/", "kind"): "kind",
    ("/api/v1/limits/self-limits/", "limit_type"): "limit_type",
    ("/api/v1/wallet/callbacks/", "provider"): "provider",
    ("/api/v1/accounts/me/messages", "message_id"): "message",
    ("/api/v1/accounts/me/data-requests", "request_id"): "data_request",
    ("/api/v1/aml/identifications/", "pk"): "identification",
    ("/api/v1/aml/staff/identifications/", "pk"): "identification",
    ("/api/v1/aml/staff/players/", "player_id"): "player_id",
}
OWN: dict[str, Any] = {}  # the current operation's player's records (set by ``player_with_records``)
STATS: dict[str, Any] = {
    "operations": set(),
    "cases": 0,
    "statuses": Counter(),
    "failed": {},
    "staff_cases": 0,
    "depth_cases": 0,
    "nul_cases": 0,
}


def _own_path_parameters(operation: Any) -> dict[str, Any] | None:
    names = [p.name for p in operation.path_parameters]
    values = {}
    for name in names:
        key = next(
            (k for (prefix, param), k in OWN_PARAMETERS.items() if param == name and operation.path.startswith(prefix)),
            None,
        )
        if key is None or key not in OWN:
            return None
        values[name] = OWN[key]
    return values


@schema.hook
def before_generate_path_parameters(context: Any, strategy: st.SearchStrategy) -> st.SearchStrategy:
    """Generated values, or (sometimes) the player's own records, so that detail endpoints answer 200 too."""
    own = st.builds(lambda: _own_path_parameters(context.operation)).filter(lambda v: v is not None)
    return st.one_of(strategy, own) if _own_path_parameters_known(context.operation) else strategy


def _own_path_parameters_known(operation: Any) -> bool:
    return all(
        any(param == p.name and operation.path.startswith(prefix) for prefix, param in OWN_PARAMETERS)
        for p in operation.path_parameters
    )


def error_shape(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every refusal is the platform's one error shape, with a stable code and both languages (core/errors.py)."""
    if not 400 <= response.status_code < 500:
        return None
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"{response.status_code} without a JSON body: {response.content[:200]!r}") from None
    error = body.get("error") if isinstance(body, dict) else None
    assert isinstance(error, dict), f"{response.status_code} not in the error shape: {body!r}"
    missing = {"code", "message", "message_cs", "message_en", "details", "request_id"} - set(error)
    assert not missing, f"{response.status_code} error without {sorted(missing)}: {error!r}"
    for key in ("code", "message_cs", "message_en"):
        assert isinstance(error[key], str) and error[key], f"{response.status_code} error with an empty {key}"
    assert isinstance(error["details"], dict), f"{response.status_code} error details not an object: {error!r}"
    return True


CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance, error_shape]


@pytest.fixture(autouse=True)
def _one_connection_across_requests() -> Iterator[None]:
    with one_connection_across_requests():
        yield


@pytest.fixture(autouse=True)
def _frozen_clock() -> Iterator[None]:
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def player_token(_frozen_clock: None, settings: Any) -> str:
    # Argon2 is deliberately slow (0.4 s a hash); this suite is not about hashing (config/settings/, TESTING)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return player_with_records()


def player_with_records() -> str:
    """A registered ACTIVE player with a funded wallet, a verified bank account and one record of every kind a
    path can name (a deposit, a withdrawal, a settled round, a complaint with an attachment, a self-limit)."""
    from accounts.services import data_request_create, message_send
    from aml.models import IdentificationCheck
    from complaints.services import complaint_file
    from complaints.tests.helpers import PDF, play_round, upload
    from core.audit import Actor
    from core.money import Money
    from limits.services import self_limit_set
    from tests.kit.accounts import token_for
    from tests.kit.platform import funded_player
    from tests.kit.wallet import verified_bank
    from wallet.services import deposit_start, withdrawal_request

    running_jackpot_levels()
    player = funded_player(2_000_000)
    actor = Actor.player(player)
    method = verified_bank(player)
    deposit = deposit_start(
        player=player, method=method, amount=Money(10_000), reference=f"fuzz-dep-{player.pk}", actor=actor
    )
    withdrawal = withdrawal_request(
        player=player, method=method, amount=Money(15_000), reference=f"fuzz-wd-{player.pk}", actor=actor
    )
    round_id = play_round(player)
    self_limit_set(player=player, kind="technical", limit_type="daily_stake", value=Money(500_000), actor=actor)
    complaint = complaint_file(
        player=player,
        reason="other",
        description="fuzz",
        actor=actor,
        event_at=NOW - timedelta(days=1),
        files=[upload("a.pdf", PDF)],
    )
    message = message_send(
        player=player, kind="notice", subject_cs="Fuzz", subject_en="Fuzz", body_cs="Fuzz", body_en="Fuzz", email=False
    )
    data_request = data_request_create(player=player, kind="explanation", text="fuzz", actor=actor)
    identification = IdentificationCheck.objects.create(
        player=player,
        provider="sandbox",
        reference=f"idc_fuzz_{player.pk}",
        document_type="id_card",
        document_number="AB1234567",
        document_issuing_state="CZ",
        document_issuing_authority="fuzz",
        document_valid_until=(NOW + timedelta(days=365)).date(),
        created_at=NOW,
    )
    OWN.clear()
    OWN.update(
        message=message.pk,
        data_request=data_request.pk,
        identification=identification.pk,
        method=method.pk,
        deposit=deposit.pk,
        withdrawal=withdrawal.pk,
        round=round_id,
        complaint=complaint.reference,
        attachment=complaint.attachments.get().pk,
        player_id=player.pk,
        game="european_roulette",
        kind="technical",
        limit_type="daily_stake",
        provider="sandbox",
    )
    return token_for(player.user)


def running_jackpot_levels() -> None:
    """Kobushi's pools (drafts from the catalogue) and a central must-hit level, started as an operator would: the
    display then answers with levels, and its answers are checked against the schema (N-10)."""
    from jackpots.levels import snapshot_clear
    from jackpots.models import Jackpot
    from jackpots.services import jackpot_start
    from jackpots.tests.helpers import STAFF, central_level

    snapshot_clear()
    for jp in Jackpot.objects.filter(family=Jackpot.Family.KOBUSHI, status=Jackpot.Status.DRAFT):
        jackpot_start(jackpot=jp, actor=STAFF)
    central_level("central-fuzz")
    snapshot_clear()


# Staff operations -------------------------------------------------------------------------------------
def _superuser() -> Any:
    from tests.kit.accounts import make_staff

    return make_staff(superuser=True)


def _role(role: str) -> Callable[[], Any]:
    def make() -> Any:
        from tests.kit.accounts import make_staff

        return make_staff(role=role)

    return make


#: The staff identities every staff operation is fuzzed as: a name -> a function that makes that staff user: the
#: superuser and one staff user holding only each role of core/roles.py; every answer must still be no 5xx,
#: documented and in the error shape (a role without the operation's permission gets the documented 403).
STAFF_ROLES: dict[str, Callable[[], Any]] = {
    "superuser": _superuser,
    **{role: _role(role) for role in ("support", "compliance", "finance", "game_manager", "auditor")},
}


def _staff_paths() -> set[str]:
    """The OpenAPI paths of the views behind ``IsStaff`` (from the URL configuration, as the authorization matrix)."""
    from core.permissions import IsStaff
    from tests.test_authorization_matrix import _endpoints

    return {"/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", path) for path, _view, _methods in _endpoints(IsStaff)}


STAFF_PATHS = _staff_paths()
staff_schema = schema.include(func=lambda ctx: ctx.operation.path in STAFF_PATHS)


@pytest.fixture
def staff_tokens(player_token: str) -> dict[str, str]:
    """A token for each staff identity of ``STAFF_ROLES`` (made after the player and their records)."""
    from tests.kit.accounts import token_for

    return {role: token_for(make()) for role, make in STAFF_ROLES.items()}


# Nesting depth and NUL bytes ---------------------------------------------------------------
DEPTHS = (33, 1_000, 100_000)
OPERATIONS = {result.ok().label: result.ok() for result in full_schema.get_all_operations() if isinstance(result, Ok)}


def _deep(depth: int, kind: str) -> bytes:
    return ("[" * depth + "]" * depth if kind == "array" else '{"a":' * depth + "1" + "}" * depth).encode()


def _path_values(operation: Any, override: dict[str, str] | None = None) -> dict[str, Any]:
    """The player's own records where a path names one (the request then reaches the view), else 1."""
    values = {p.name: "1" for p in operation.path_parameters}
    values.update(_own_path_parameters(operation) or {})
    values.update(override or {})
    return values


def _call(case: Any, token: str | None) -> Any:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return case.call_and_validate(headers=headers, checks=CHECKS)


def _hostile_cases(operation: Any) -> Iterator[tuple[str, dict[str, Any], int | None, bool]]:
    """(what, Case arguments, the status it must get or None for "a 4xx", anonymous?) for one operation."""
    if any(alt.media_type == "application/json" for alt in operation.body):
        for depth in DEPTHS:
            for kind in ("array", "object"):
                for anonymous in (False, True):
                    yield (
                        f"depth {depth} {kind}",
                        {
                            "body": _deep(depth, kind),
                            "media_type": "application/json",
                            "path_parameters": _path_values(operation),
                            "headers": {"Idempotency-Key": f"deep-{depth}-{kind}"},
                        },
                        None,
                        anonymous,
                    )
    for param in operation.query:
        yield (
            f"NUL in ?{param.name}",
            {"query": {param.name: "\x00"}, "path_parameters": _path_values(operation)},
            400,
            False,
        )
    for param in operation.path_parameters:
        yield (
            f"NUL in {{{param.name}}}",
            {"path_parameters": _path_values(operation, {param.name: "1%00"})},
            404,
            False,
        )
    segments = operation.path.strip("/").split("/")
    for i, segment in enumerate(segments):
        if not segment.startswith("{"):
            path = "/" + "/".join([*segments[:i], segment + "%00", *segments[i + 1 :]])
            yield (f"NUL in /{segment}", {"path_parameters": _path_values(operation), "path": path}, 404, False)


class _Summary:
    """Prints the counts after the session's results (a pytest plugin registered by the module)."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        failed = STATS["failed"]
        terminalreporter.write_line(
            f"hostile input: {len(STATS['operations'])} operations, {STATS['cases']} cases "
            f"({EXAMPLES} fuzzed per operation + the coverage phase, seed {SEED}; of them "
            f"{STATS['staff_cases']} staff calls as {len(STAFF_ROLES)} staff identities ({', '.join(STAFF_ROLES)}), "
            f"{STATS['depth_cases']} deep JSON bodies, {STATS['nul_cases']} NUL bytes), "
            f"{sum(len(v) for v in failed.values())} failures in {len(failed)} operations; "
            f"statuses {dict(sorted(STATS['statuses'].items()))}"
        )
        for label, kinds in sorted(failed.items()):
            terminalreporter.write_line(f"  FAILED {label}: {', '.join(sorted(kinds))}")


@pytest.fixture(scope="module", autouse=True)
def _summary(request: pytest.FixtureRequest) -> None:
    if not request.config.pluginmanager.has_plugin("hostile-input-summary"):
        request.config.pluginmanager.register(_Summary(), "hostile-input-summary")


@pytest.mark.django_db(databases=["default", "refusal_log"])
@schema.parametrize()
@hypothesis.settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # a player per operation, on purpose
def test_no_input_gets_a_server_error_or_an_undocumented_answer(case: Any, player_token: str) -> None:
    cache.clear()  # throttles and lock-outs count in the cache: every case is judged on its input alone
    STATS["operations"].add(case.operation.label)
    STATS["cases"] += 1
    try:
        response = case.call_and_validate(headers={"Authorization": f"Token {player_token}"}, checks=CHECKS)
    except FailureGroup as exc:
        STATS["failed"].setdefault(case.operation.label, set()).update(
            getattr(f, "title", type(f).__name__) for f in exc.exceptions
        )
        raise
    STATS["statuses"][response.status_code] += 1


@pytest.mark.django_db(databases=["default", "refusal_log"])
@staff_schema.parametrize()
@hypothesis.settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # as above
def test_staff_operations_get_no_server_error_as_any_staff_identity(case: Any, staff_tokens: dict[str, str]) -> None:
    """Every staff operation with generated data, as each staff identity of ``STAFF_ROLES``."""
    for role, token in staff_tokens.items():
        cache.clear()
        label = f"{case.operation.label} as {role}"
        STATS["operations"].add(case.operation.label)
        STATS["cases"] += 1
        STATS["staff_cases"] += 1
        try:
            response = _call(case, token)
        except FailureGroup as exc:
            STATS["failed"].setdefault(label, set()).update(
                getattr(f, "title", type(f).__name__) for f in exc.exceptions
            )
            raise
        STATS["statuses"][response.status_code] += 1


def _app(label: str) -> str:
    """The app of "GET /api/v1/<app>/..."."""
    parts = label.split(" ", 1)[1].strip("/").split("/")
    return parts[2] if len(parts) > 2 and parts[1] == "v1" else parts[-1]


APPS = sorted({_app(label) for label in OPERATIONS})


@pytest.mark.django_db(databases=["default", "refusal_log"])
@pytest.mark.parametrize("app", APPS)
def test_deep_json_and_nul_bytes_get_a_defined_refusal_on_every_operation(
    app: str, player_token: str, staff_tokens: dict[str, str]
) -> None:
    """N-6 and N-7 on every operation of the schema (the session-ending ones too: none of these requests can reach
    the service), one app at a time (one player with records per app), as the player, anonymously for deep JSON,
    and a staff operation as each staff identity too (the review's ``?status=%00`` needed a staff caller): deep JSON
    is a 4xx, a NUL in a query parameter a 400 ``request.invalid``, in a path a 404."""
    failures = []
    for label in sorted(label for label in OPERATIONS if _app(label) == app):
        callers = {"player": player_token}
        if OPERATIONS[label].path in STAFF_PATHS:
            callers.update(staff_tokens)
        for who, token in callers.items():
            failures += [f"{label} as {who}: {failure}" for failure in _hostile_operation(label, token)]
    assert not failures, failures


def _hostile_operation(label: str, token: str) -> list[str]:
    operation = OPERATIONS[label]
    failures: list[str] = []
    for what, arguments, expected, anonymous in _hostile_cases(operation):
        cache.clear()
        path = arguments.pop("path", None)
        case = operation.Case(**arguments)
        if path is not None:
            case.path = path
        STATS["operations"].add(label)
        STATS["cases"] += 1
        STATS["depth_cases" if what.startswith("depth") else "nul_cases"] += 1
        try:
            response = _call(case, None if anonymous else token)
        except FailureGroup as exc:
            failures.append(f"{what}: {', '.join(getattr(f, 'title', type(f).__name__) for f in exc.exceptions)}")
            continue
        STATS["statuses"][response.status_code] += 1
        code = response.json()["error"]["code"] if 400 <= response.status_code < 500 else None
        if expected is None and not 400 <= response.status_code < 500:
            failures.append(f"{what}{' (anonymous)' if anonymous else ''}: {response.status_code}")
        elif expected == 400 and (response.status_code, code) != (400, "request.invalid"):
            failures.append(f"{what}: {response.status_code} {code}")
        elif expected == 404 and response.status_code != 404:
            failures.append(f"{what}: {response.status_code} {code}")
    if failures:
        STATS["failed"].setdefault(label, set()).update(failures)
    return failures
