"""The typed reader of the environment: every variable the platform reads is read here once, with its type, default,
meaning and whether production requires it, and lands in one registry (``Env.registry``) from which
``scripts/settings_doc.py`` writes ``docs/settings.md``.

A reader returns the typed value (``env.int`` an ``int``, ``env.bool`` a ``bool``), so code reads ``settings.X`` as it
is, without casting it again. ``production=`` is the default when ``DJANGO_ENV=production`` (``default=`` elsewhere);
``required=True`` says production refuses to start without the variable set. ``old=`` names a variable's former
names: a value found under an old name is taken (and reported in ``Env.renamed``); set under both names with
different values is refused at start.
"""

from __future__ import annotations

import builtins
import json as jsonlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.database_url import parse_database_url

_UNSET: Any = object()
TRUE = ("1", "true", "yes", "on", "y", "t")
FALSE = ("0", "false", "no", "off", "n", "f", "")


@dataclass(frozen=True)
class Variable:
    """One environment variable as the doc lists it."""

    name: str
    type: str
    default: str
    production: str  # the default in production when it differs ("" when the same)
    required: bool
    meaning: str
    area: str
    old: tuple[str, ...] = ()


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(builtins.str(v) for v in value) or "(empty)"
    if isinstance(value, dict):
        return jsonlib.dumps(value, ensure_ascii=False) if value else "{}"
    text = builtins.str(value)
    return text if text != "" else "(empty)"


class Env:
    """Reads ``environ`` (``os.environ`` in the settings) once per variable and records each in ``registry``."""

    def __init__(
        self,
        environ: Mapping[builtins.str, builtins.str],
        *,
        production: builtins.bool = False,
        base_dir: Path | None = None,
    ) -> None:
        self.environ = environ
        self.production = production
        self.base_dir = base_dir
        self.registry: dict[str, Variable] = {}
        self.renamed: dict[str, str] = {}  # old name found -> current name
        self._area = "Core"

    def area(self, name: builtins.str) -> None:
        """The area (a heading of docs/settings.md) of the variables read next."""
        self._area = name

    # the raw text -------------------------------------------------------------------------------------------------
    def raw(self, name: builtins.str) -> builtins.str:
        """The environment's text of a registered variable ("" when unset): for rules that ask whether it was set."""
        if name not in self.registry:
            raise ImproperlyConfigured(f"{name} is read before it is registered (config/settings/)")
        for key in (name, *self.registry[name].old):
            if self.environ.get(key, "") != "":
                return self.environ[key]
        return ""

    def is_set(self, name: builtins.str) -> builtins.bool:
        return self.raw(name) != ""

    def missing_required(self) -> builtins.list[builtins.str]:
        """The variables read so far that production requires and the environment does not set."""
        return [name for name, var in self.registry.items() if var.required and not self.is_set(name)]

    def _read(
        self,
        name: builtins.str,
        kind: builtins.str,
        default: Any,
        meaning: builtins.str,
        production: Any,
        required: builtins.bool,
        old: builtins.tuple[builtins.str, ...],
        shown: builtins.str | None = None,
        production_shown: builtins.str | None = None,
    ) -> builtins.tuple[Any, builtins.str]:
        if not meaning:
            raise ImproperlyConfigured(f"{name}: every variable says what it means")
        if name in self.registry:
            raise ImproperlyConfigured(f"{name} is read twice: read it once and use the setting")
        self.registry[name] = Variable(
            name=name,
            type=kind,
            default=shown if shown is not None else _shown(default),
            production="" if production is _UNSET else (production_shown or _shown(production)),
            required=required,
            meaning=meaning,
            area=self._area,
            old=old,
        )
        values = [(key, self.environ[key]) for key in (name, *old) if self.environ.get(key, "") != ""]
        if len({v for _, v in values}) > 1:
            raise ImproperlyConfigured(
                f"{name} is set under its old name too ({', '.join(k for k, _ in values)}) "
                "with another value: keep the new name"
            )
        for key, _ in values:
            if key != name:
                self.renamed[key] = name
        if values:
            return values[0][1], "environment"
        return (production if self.production and production is not _UNSET else default), "default"

    # typed readers ------------------------------------------------------------------------------------------------
    def str(
        self,
        name: builtins.str,
        default: builtins.str,
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        required: builtins.bool = False,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> builtins.str:
        value, _ = self._read(name, "text", default, meaning, production, required, old)
        return builtins.str(value)

    def int(
        self,
        name: builtins.str,
        default: builtins.int,
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        required: builtins.bool = False,
        old: builtins.tuple[builtins.str, ...] = (),
        low: builtins.int | None = None,
        high: builtins.int | None = None,
    ) -> builtins.int:
        value, source = self._read(name, "integer", default, meaning, production, required, old)
        if source == "environment":
            try:
                value = builtins.int(builtins.str(value).strip().replace("_", ""))
            except ValueError:
                raise ImproperlyConfigured(f"{name} must be a whole number") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise ImproperlyConfigured(
                f"{name} must be {low if low is not None else '...'} to {high if high is not None else '...'}"
            )
        return builtins.int(value)

    def optional_int(
        self,
        name: builtins.str,
        default: builtins.int | None,
        meaning: builtins.str,
        *,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> builtins.int | None:
        """A whole number or nothing ("" or "none": no limit)."""
        value, source = self._read(name, "integer or none", default, meaning, _UNSET, False, old)
        if source == "default":
            return value
        text = builtins.str(value).strip().lower()
        if text == "none":
            return None
        try:
            return builtins.int(text)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must be a whole number or none") from None

    def float(
        self,
        name: builtins.str,
        default: builtins.float,
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        required: builtins.bool = False,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> builtins.float:
        value, source = self._read(name, "number", default, meaning, production, required, old)
        if source == "environment":
            try:
                return builtins.float(builtins.str(value).strip())
            except ValueError:
                raise ImproperlyConfigured(f"{name} must be a number") from None
        return builtins.float(value)

    def bool(
        self,
        name: builtins.str,
        default: builtins.bool,
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        required: builtins.bool = False,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> builtins.bool:
        value, source = self._read(name, "true/false", default, meaning, production, required, old)
        if source == "default":
            return builtins.bool(value)
        text = builtins.str(value).strip().lower()
        if text in TRUE:
            return True
        if text in FALSE:
            return False
        raise ImproperlyConfigured(f"{name} must be true or false")

    def list(
        self,
        name: builtins.str,
        default: builtins.list[builtins.str],
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        required: builtins.bool = False,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> builtins.list[builtins.str]:
        value, source = self._read(name, "comma-separated list", default, meaning, production, required, old)
        if source == "default":
            return builtins.list(value)
        return [part.strip() for part in builtins.str(value).split(",") if part.strip()]

    def json(
        self,
        name: builtins.str,
        default: Any,
        meaning: builtins.str,
        *,
        production: Any = _UNSET,
        shown: builtins.str | None = None,
        old: builtins.tuple[builtins.str, ...] = (),
    ) -> Any:
        value, source = self._read(name, "JSON", default, meaning, production, False, old, shown=shown)
        if source == "default":
            return value
        try:
            return jsonlib.loads(value)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must be JSON") from None

    def path(self, name: builtins.str, default: Path, meaning: builtins.str) -> Path:
        shown = (
            builtins.str(default.relative_to(self.base_dir))
            if self.base_dir and default.is_relative_to(self.base_dir)
            else builtins.str(default)
        )
        value, _ = self._read(name, "path", default, meaning, _UNSET, False, (), shown=shown)
        return Path(value)

    def database(
        self, name: builtins.str, meaning: builtins.str, *, required: builtins.bool = False
    ) -> builtins.dict[builtins.str, Any] | None:
        """A database URL (config/database_url.py) as Django's DATABASES entry; None when unset."""
        value, _ = self._read(name, "database URL", "", meaning, _UNSET, required, ())
        return parse_database_url(value) if value else None
