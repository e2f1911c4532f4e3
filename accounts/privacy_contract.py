"""The privacy contract between the apps (GP §12(5), §12(7)): who holds which personal data of a participant, for how
long and under which law, what the participant gets in the export, what the retention job does at the end, and to
whom the data go. Declared, and fail-closed like ``accounts.hooks``.

``accounts`` sits below every app that keeps data about a player, so it may not import them. Each such app
registers one :class:`Contract` from its ``AppConfig.ready()``:

* ``records``: each :class:`Record` names the models that hold it, its retention periods (codes of
  ``accounts.retention.periods()``: the record is kept until the **longest** of them has passed, counted from the end
  of the relationship), what it is, what the anonymisation does to it at the end and what stays afterwards;
* ``export(player) -> dict``: the app's part of ``GET /api/v1/accounts/me/export`` (GP §12(7)a);
* ``anonymise(*, player, records, actor, now) -> dict[str, dict[str, int]]``: blank / delete the given records of one
  ended player (called by the one retention job, inside its transaction, the player row locked; idempotent);
  returns, per record code, the rows (or files) changed per kind (the recipients of a record with changes are told);
* ``withheld``: what the export leaves out on purpose, and why (e.g. the AML law's ban on tipping off);
* ``sweep(*, actor, now) -> dict[str, dict[str, int]]`` (optional): anonymise the app's records that belong to no
  player (a bank statement's line of an unknown payer, the bank files themselves), each by its own date; called by
  the same job after the players' records, in its own transactions; idempotent.

Fail-closed:

* the system check ``accounts.E002`` stops ``manage.py`` when a model of the project that holds a participant's data
  (it points at ``accounts.Player``, directly or through other such models, keeps a ``player_id`` column, or stores
  files) is in no registered record, so a new model or a new app cannot be forgotten; ``accounts.E003`` when a
  declaration is inconsistent
  (an unknown period or recipient, a model in two records, a record code not of its app);
* :func:`contracts` (which the export and the job call) raises :class:`accounts.hooks.HookMissing` while either
  check fails: nothing is exported or anonymised half.

Recipients (GP §12(4), §12(7); GDPR art. 19): ``settings.PRIVACY_RECIPIENTS`` declares every recipient the data go
to (processors, other controllers, authorities) with the records it receives; the privacy notice publishes them, and a
correction or an erasure records a notice to each relevant recipient (``accounts.RecipientNotice``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import models

from accounts import retention
from accounts.hooks import HookMissing

if TYPE_CHECKING:
    from accounts.models import Player

PLAYER_MODEL = "accounts.Player"


@dataclass(frozen=True)
class Record:
    """One kind of personal data an app keeps, with its retention and what happens at its end."""

    code: str  # "<app label>.<name>"
    models: tuple[str, ...]  # model labels ("aml.IdentificationCheck") that hold it
    periods: tuple[str, ...]  # retention period codes; kept until the longest has passed
    what_cs: str
    what_en: str
    erased_cs: str  # what the anonymisation does to it at the end of its retention
    erased_en: str
    kept_cs: str = ""  # what stays afterwards (and why); "" = nothing of it names the person
    kept_en: str = ""

    @property
    def retention_key(self) -> str:
        """The group of records that end together: the sorted period codes."""
        return "+".join(sorted(self.periods))


@dataclass(frozen=True)
class Contract:
    app: str
    records: tuple[Record, ...]
    export: Callable[[Player], dict[str, Any]]
    anonymise: Callable[..., dict[str, dict[str, int]]]  # record code -> what changed -> rows / files
    withheld: tuple[dict[str, str], ...] = field(default=())
    sweep: Callable[..., dict[str, dict[str, int]]] | None = None  # records of no player: record code -> kind -> rows
    # recipients the app's own data declare (e.g. every enabled game studio), beside settings.PRIVACY_RECIPIENTS;
    # each entry in the same shape, its records among the app's own
    recipients: Callable[[], list[dict[str, Any]]] | None = None


_contracts: dict[str, Contract] = {}
_verified = False


def register(contract: Contract) -> None:
    """Register an app's contract (call from its ``AppConfig.ready``); one per app."""
    global _verified
    current = _contracts.get(contract.app)
    if current is not None and current is not contract:
        raise ValueError(f"privacy contract of {contract.app!r} is already registered")
    _contracts[contract.app] = contract
    _verified = False


def _project_apps() -> list[Any]:
    """The project's own apps (not Django's or a library's): those whose code lives under BASE_DIR."""
    base = settings.BASE_DIR.resolve()
    out = []
    for cfg in apps.get_app_configs():
        path = Path(cfg.path).resolve()
        if base in path.parents and ".venv" not in path.parts and "site-packages" not in path.parts:
            out.append(cfg)
    return out


def personal_models() -> set[str]:
    """Labels of the project's models that hold a participant's data: ``accounts.Player`` and every model that
    points at one of them (foreign key, one-to-one, many-to-many; to a fixpoint), every model that stores files or
    keeps a ``player_id`` column without a foreign key, and every model a registered record declares (callback bodies,
    rows that keep a player id without a foreign key)."""
    project = [m for cfg in _project_apps() for m in cfg.get_models()]
    found = {PLAYER_MODEL}
    found |= {m._meta.label for m in project if any(isinstance(f, models.FileField) for f in m._meta.get_fields())}
    # a player's id kept without a foreign key (rows written on the hot path or across a layer)
    found |= {
        m._meta.label
        for m in project
        if any(getattr(f, "attname", None) == "player_id" and not f.is_relation for f in m._meta.get_fields())
    }
    changed = True
    while changed:
        changed = False
        for m in project:
            if m._meta.label in found:
                continue
            for f in m._meta.get_fields():
                if (
                    f.is_relation
                    and f.concrete
                    and f.related_model is not None
                    and f.related_model._meta.label in found
                ):
                    found.add(m._meta.label)
                    changed = True
                    break
    found |= {label for c in _contracts.values() for r in c.records for label in r.models}
    return found


def problems() -> list[checks.CheckMessage]:
    """What is wrong with the declarations now (empty when the contract holds)."""
    out: list[checks.CheckMessage] = []
    covered: dict[str, str] = {}
    known_periods = set(retention.codes())
    record_codes: set[str] = set()
    for c in _contracts.values():
        for r in c.records:
            if not r.code.startswith(f"{c.app}.") or r.code in record_codes:
                out.append(
                    checks.Error(
                        f"privacy record {r.code!r} of {c.app!r}: a code must be unique and start with the app label",
                        id="accounts.E003",
                    )
                )
            record_codes.add(r.code)
            if not r.periods or set(r.periods) - known_periods:
                out.append(
                    checks.Error(
                        f"privacy record {r.code!r} names unknown retention periods {r.periods!r}",
                        hint=f"known: {sorted(known_periods)}",
                        id="accounts.E003",
                    )
                )
            for label in r.models:
                if label in covered:
                    out.append(
                        checks.Error(
                            f"model {label} is in two privacy records ({covered[label]}, {r.code})", id="accounts.E003"
                        )
                    )
                covered[label] = r.code
                try:
                    apps.get_model(label)
                except LookupError:
                    out.append(
                        checks.Error(f"privacy record {r.code!r} names an unknown model {label}", id="accounts.E003")
                    )
    for rec in settings.PRIVACY_RECIPIENTS:  # the apps' own come from their data (no query here)
        unknown = set(rec.get("records", ())) - record_codes
        if unknown:
            out.append(
                checks.Error(
                    f"privacy recipient {rec.get('code')!r} receives unknown records {sorted(unknown)}",
                    hint="settings.PRIVACY_RECIPIENTS",
                    id="accounts.E003",
                )
            )
    for label in sorted(personal_models() - set(covered)):
        app = label.split(".")[0]
        hint = (
            f"the app {app!r} registers no privacy contract"
            if app not in _contracts
            else f"add it to a record of the {app!r} privacy contract"
        )
        out.append(
            checks.Error(
                f"model {label} holds a participant's data but no privacy record declares it "
                f"(retention, export, anonymisation)",
                hint=hint + " (accounts/privacy_contract.py)",
                id="accounts.E002",
            )
        )
    return out


@checks.register()
def privacy_contract_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """System check: every model holding a participant's data is declared with its retention, export and
    anonymisation."""
    return problems()


def contracts() -> list[Contract]:
    """The registered contracts, ``accounts`` last (its anonymisation ends the account). Raises
    :class:`HookMissing` while the declarations are incomplete: the export and the job never run half."""
    global _verified
    if not _verified:
        found = problems()
        if found:
            raise HookMissing("privacy contract incomplete: " + "; ".join(str(p.msg) for p in found))
        _verified = True
    return sorted(_contracts.values(), key=lambda c: (c.app == "accounts", c.app))


def records() -> list[Record]:
    return [r for c in contracts() for r in c.records]


def retention_groups() -> list[tuple[str, tuple[str, ...]]]:
    """The groups of records that end together, as (key, period codes), the group of every period (the account
    itself) last."""
    groups = {r.retention_key: tuple(sorted(r.periods)) for r in records()}
    everything = "+".join(sorted(retention.codes()))
    return sorted(groups.items(), key=lambda kv: (kv[0] == everything, len(kv[1]), kv[0]))


def all_periods_key() -> str:
    return "+".join(sorted(retention.codes()))


def recipients() -> list[dict[str, Any]]:
    """The declared recipients of the data: ``settings.PRIVACY_RECIPIENTS`` and those the apps' contracts declare
    from their own data (every enabled game studio, GP §12(4))."""
    found = list(settings.PRIVACY_RECIPIENTS)
    for c in contracts():
        if c.recipients is not None:
            found.extend(c.recipients())
    return found


def recipients_of(record_codes: Iterable[str]) -> list[dict[str, Any]]:
    """The recipients to notify (``notify``) that receive any of the records."""
    wanted = set(record_codes)
    return [r for r in recipients() if r.get("notify") and wanted & set(r.get("records", ()))]


def retention_table() -> list[dict[str, Any]]:
    """Every declared record with its models, periods and what happens at the end (the privacy notice, docs)."""
    rows = []
    by_code = {p.code: p for p in retention.periods()}
    for c in contracts():
        for r in c.records:
            rows.append(
                {
                    "app": c.app,
                    "record": r.code,
                    "models": list(r.models),
                    "periods": list(r.periods),
                    "years": max(by_code[p].years for p in r.periods),
                    "sources_cs": [by_code[p].source_cs for p in r.periods],
                    "sources_en": [by_code[p].source_en for p in r.periods],
                    "what_cs": r.what_cs,
                    "what_en": r.what_en,
                    "erased_cs": r.erased_cs,
                    "erased_en": r.erased_en,
                    "kept_cs": r.kept_cs,
                    "kept_en": r.kept_en,
                }
            )
    return rows
