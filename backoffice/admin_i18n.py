"""The back office in the staff member's language: every name the admin shows (model and app names, fields' labels,
list columns, filters' titles, fieldsets, actions) and every value it shows by name (the choices' labels such as a
status, the help texts under form fields) goes through Django's translation, with the English text as the message id
and its Czech in ``locale/cs/LC_MESSAGES/django.po`` (names) and ``backoffice/locale/cs/LC_MESSAGES/django.po``
(choices' labels and help texts).

The models keep their plain English names; ``translate_admin`` wraps each in ``gettext_lazy`` once at start
(``BackofficeConfig.ready``, after the admin's autodiscovery). Only the displayed attributes change: the names the
migrations read (``Options.original_attrs``, ``Field._verbose_name``) stay as they are; a field's ``choices`` and
``help_text`` become lazy texts whose message id is the English original, which ``makemigrations`` (translations off)
reads as the same text, so no migration follows. The enumerations (``Status.choices``, ``Status.WIN.label``) keep
their English labels: the services' stored texts (ledger memos) are composed from them.
``admin_messages`` lists every such text, for the test that finds none untranslated.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin import ModelAdmin
from django.contrib.admin.sites import AdminSite
from django.forms.utils import pretty_name
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from core.admin_site import TECHNICAL_APPS


def _lazy(value: Any) -> Any:
    """``value`` translated when shown: a non-empty text becomes ``gettext_lazy`` of its English text (a lazy one too:
    Django's default plural is ``format_lazy("{}s", verbose_name)``, which would stay English); anything else is
    kept."""
    if isinstance(value, (str, Promise)) and value:
        return gettext_lazy(_msgid(value))
    return value


def _lazy_choices(choices: Any) -> Any:
    """A field's choices with each label (and each group's name) translated when shown; the values are kept."""
    if not isinstance(choices, (list, tuple)):  # a callable's choices (evaluated late): left as they are
        return choices
    out: list[tuple[Any, Any]] = []
    for value, label in choices:
        out.append((_lazy(value), _lazy_choices(label)) if isinstance(label, (list, tuple)) else (value, _lazy(label)))
    return out


def _choice_labels(choices: Any) -> Iterator[Any]:
    if isinstance(choices, (list, tuple)):
        for value, label in choices:
            yield from (value, *_choice_labels(label)) if isinstance(label, (list, tuple)) else (label,)


def _described(obj: Any) -> Any:
    """The function that carries an admin column's ``short_description`` (a property's getter, a method's
    function), or None."""
    if isinstance(obj, property):
        return obj.fget
    return getattr(obj, "__func__", obj) if callable(obj) else None


def _field_names(model_admin: ModelAdmin[Any]) -> Iterator[Any]:
    """Every name or callable a model admin shows: list columns, read-only fields and the fields of its fieldsets."""
    yield from model_admin.list_display
    yield from model_admin.readonly_fields
    for _title, options in model_admin.fieldsets or ():
        for entry in options.get("fields", ()):
            yield from (entry if isinstance(entry, (list, tuple)) else (entry,))


def _column(model_admin: ModelAdmin[Any], name: Any) -> Any:
    """The object whose ``short_description`` labels the column ``name`` (the callable itself, a model admin's
    method, the model's method or property), or None for a model field (its label is the field's)."""
    if callable(name):
        return _described(name)
    if name.startswith("__"):  # ``__str__``: labelled by the model's name
        return None
    for owner in (type(model_admin), model_admin.model):
        found = getattr(owner, name, None)
        if found is not None and not hasattr(found, "field"):  # a model field's descriptor is labelled by the field
            return _described(found)
    return None


def _filters(model_admin: ModelAdmin[Any]) -> Iterator[type[admin.SimpleListFilter]]:
    for entry in model_admin.list_filter:
        flt = entry[1] if isinstance(entry, (list, tuple)) else entry
        if isinstance(flt, type) and issubclass(flt, admin.SimpleListFilter):
            yield flt


def _actions(site: AdminSite, model_admin: ModelAdmin[Any]) -> Iterator[Any]:
    for action in [*dict(site.actions).values(), *(model_admin.actions or ())]:
        yield _described(action if callable(action) else getattr(type(model_admin), action, None))


def _business(site: AdminSite) -> Iterable[tuple[type[Any], ModelAdmin[Any]]]:
    """The registered models and their admins, the libraries' technical tables left out (their own apps translate
    them or not; ``core.admin_site.TECHNICAL_APPS``)."""
    return [(m, ma) for m, ma in site._registry.items() if m._meta.app_label not in TECHNICAL_APPS]


def _translate_model(model: type[Any]) -> None:
    opts = model._meta
    opts.verbose_name = _lazy(opts.verbose_name)
    opts.verbose_name_plural = _lazy(opts.verbose_name_plural)
    opts.app_config.verbose_name = _lazy(opts.app_config.verbose_name)
    for field in opts.get_fields():
        if hasattr(field, "verbose_name"):
            field.verbose_name = _lazy(field.verbose_name)
        if getattr(field, "choices", None):
            field.choices = _lazy_choices(field.choices)
        if getattr(field, "help_text", None):
            field.help_text = _lazy(field.help_text)


def _forms(model_admin: ModelAdmin[Any]) -> Iterator[type[forms.BaseForm]]:
    """The form classes an admin shows: its own and its inlines' forms, and every form its module declares (the
    decision pages' forms)."""
    yield model_admin.form
    for inline in model_admin.inlines:
        yield inline.form
    namespace = vars(sys.modules[type(model_admin).__module__])
    # an app's admin-only forms module imported whole (``from accounts import forms``: the staff actions' forms)
    modules = [vars(v) for v in namespace.values() if isinstance(v, ModuleType) and v.__name__.endswith(".forms")]
    for values in (namespace, *modules):
        for value in values.values():
            if (
                isinstance(value, type)
                and issubclass(value, forms.BaseForm)
                and value.__module__.endswith(_FORM_MODULES)
                and value.__module__.split(".")[0] in _PROJECT_APPS
            ):
                yield value


_FORM_MODULES = tuple(f".{n}" for n in ("admin", "admin_privacy", "admin_forms", "forms"))
#: the project's own apps (Django's ``django.forms`` module and the libraries' forms are theirs)
_PROJECT_APPS = {
    "accounts",
    "aml",
    "backoffice",
    "complaints",
    "core",
    "games",
    "jackpots",
    "limits",
    "providers",
    "regulator",
    "reports",
    "wallet",
}


def _form_label(name: str, field: forms.Field) -> Any:
    return field.label if field.label else pretty_name(name)


def translate_admin(site: AdminSite) -> None:
    """Wrap every displayed name of the models registered on ``site`` (and of their inlines' models, forms and
    decision forms) in ``gettext_lazy`` (idempotent)."""
    for model, model_admin in _business(site):
        _translate_model(model)
        for inline in model_admin.inlines:
            _translate_model(inline.model)
            inline.verbose_name = _lazy(inline.verbose_name)
            inline.verbose_name_plural = _lazy(inline.verbose_name_plural)
        for name in _field_names(model_admin):
            func = _column(model_admin, name)
            if func is not None and hasattr(func, "short_description"):
                func.short_description = _lazy(func.short_description)
            elif callable(func) and isinstance(name, str):  # Django would label it with its name, in English
                func.short_description = _lazy(pretty_name(name))
        for flt in _filters(model_admin):
            flt.title = _lazy(flt.title)
        for func in _actions(site, model_admin):
            if func is not None and hasattr(func, "short_description"):
                func.short_description = _lazy(func.short_description)
        if model_admin.fieldsets:
            model_admin.fieldsets = [  # type: ignore[misc]  # set on the one instance the site holds
                (_lazy(title), options) for title, options in model_admin.fieldsets
            ]
        for form in _forms(model_admin):
            for name, field in getattr(form, "base_fields", {}).items():
                field.label = _lazy(_form_label(name, field))
                field.help_text = _lazy(field.help_text)
                if isinstance(field, forms.ChoiceField) and not isinstance(field, forms.ModelChoiceField):
                    field.choices = _lazy_choices(field.choices)


def _msgid(value: Any) -> str:
    """The English text of a (lazy) translatable string: its message id, translations off."""
    with translation.override(None):
        return str(value)


def _model_messages(model: type[Any], *, with_fields: bool = True) -> Iterator[Any]:
    opts = model._meta
    yield from (opts.verbose_name, opts.verbose_name_plural, opts.app_config.verbose_name)
    if with_fields:
        for field in opts.get_fields():
            if getattr(field, "concrete", False) or field.many_to_many:
                yield getattr(field, "verbose_name", None)
                yield from _choice_labels(getattr(field, "choices", None))
                yield getattr(field, "help_text", None)


def _admin_messages(site: AdminSite, model: type[Any], model_admin: ModelAdmin[Any]) -> Iterator[Any]:
    from django.contrib.admin.utils import label_for_field

    yield from _model_messages(model)
    for inline in model_admin.inlines:
        yield from _model_messages(inline.model)
    for name in _field_names(model_admin):
        func = _column(model_admin, name)
        if func is not None:
            yield getattr(func, "short_description", None)
        elif isinstance(name, str):
            try:
                yield label_for_field(name, model, model_admin)
            except AttributeError:  # safe: only a label is collected; a form-only field is labelled by its form
                continue
    yield from (flt.title for flt in _filters(model_admin))
    yield from (getattr(func, "short_description", None) for func in _actions(site, model_admin))
    yield from (title for title, _options in model_admin.fieldsets or ())
    for form in _forms(model_admin):
        for name, field in getattr(form, "base_fields", {}).items():
            yield from (_form_label(name, field), field.help_text)
            if isinstance(field, forms.ChoiceField) and not isinstance(field, forms.ModelChoiceField):
                yield from _choice_labels(field.choices)


def admin_messages(site: AdminSite) -> set[str]:
    """Every English text ``translate_admin`` made translatable on ``site``: the message ids the Czech catalogue
    needs."""
    with translation.override(None):  # Django's labels come as text in the active language
        return {
            _msgid(value)
            for model, model_admin in _business(site)
            for value in _admin_messages(site, model, model_admin)
            if value and _has_letters(value)
        }


def _has_letters(value: Any) -> bool:
    """Whether a text is words (a label "-" is not)."""
    return any(ch.isalpha() for ch in _msgid(value))
