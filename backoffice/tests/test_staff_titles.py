"""A record's page names the record in the staff member's language: its title, heading and breadcrumb show the
admin's ``staff_title`` (``core.admin.PlatformAdminMixin``), never the model's ``str()``, which stays English and
language-independent on purpose (Django's admin history and the logs store it: "round 812 european_roulette@1
finished"). Walked over the demo's records of every registered model, as a Czech staff member."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.conf import settings as conf
from django.contrib import admin
from django.test import Client
from django.urls import reverse
from django.utils import translation

from backoffice.tests.test_no_raw_codes import _seed_demo
from core.admin import PlatformAdminMixin
from tests.kit.accounts import make_staff

pytestmark = pytest.mark.django_db

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_CRUMBS = re.compile(r'<div class="breadcrumbs">(.*?)</div>', re.S)


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _ours(model: Any) -> bool:
    path = str(model._meta.app_config.path)
    return path.startswith(str(conf.BASE_DIR)) and "site-packages" not in path


def named_by_str(page: str, obj: Any, title: str) -> list[str]:
    """The places of ``page`` (its title, its breadcrumb) that do not name the record by ``title`` or that show
    its English ``str()``."""
    wrong = []
    for where, pattern in (("title", _TITLE), ("breadcrumb", _CRUMBS)):
        found = pattern.search(page)
        text = _text(found.group(1)) if found else ""
        if " ".join(title.split()) not in text or (str(obj) != title and " ".join(str(obj).split()) in text):
            wrong.append(f"{where}: {text[:120]!r}")
    return wrong


def test_the_check_finds_a_page_named_by_str() -> None:
    class Round:
        def __str__(self) -> str:
            return "round 812 european_roulette@1 finished"

    english = '<title>round 812 european_roulette@1 finished | Zobrazit kolo</title><div class="breadcrumbs">x</div>'
    assert named_by_str(english, Round(), "Kolo 812") == [
        "title: 'round 812 european_roulette@1 finished | Zobrazit kolo'",
        "breadcrumb: 'x'",
    ]
    czech = '<title>Kolo 812 | Zobrazit kolo</title><div class="breadcrumbs">Domů › Kola › Kolo 812</div>'
    assert named_by_str(czech, Round(), "Kolo 812") == []


def test_every_record_page_is_named_in_the_staff_members_language(settings: Any, tmp_path: Any) -> None:
    _seed_demo(settings, tmp_path)
    client = Client(headers={"accept-language": "cs-CZ,cs;q=0.9"})
    client.force_login(make_staff(role=None, superuser=True))
    wrong: dict[str, list[str]] = {}
    seen = 0
    for model, model_admin in admin.site._registry.items():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        for obj in model._default_manager.order_by("-pk")[:1]:
            # the platform's own admins share its base; a library's (Django's groups, axes' logs) keep theirs
            assert isinstance(model_admin, PlatformAdminMixin) or not _ours(model), model
            for view in ("change", "history"):
                r = client.get(reverse(f"{prefix}_{view}", args=[obj.pk]))
                assert r.status_code == 200, (model.__name__, view, r.status_code)
                with translation.override("cs"):
                    title = model_admin.staff_title(obj) if isinstance(model_admin, PlatformAdminMixin) else str(obj)
                seen += 1
                if problems := named_by_str(r.content.decode(), obj, title):
                    wrong[f"{model.__name__} {view}"] = problems
    assert seen >= 70, seen  # two pages each of the ~40 models the demo fills
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in sorted(wrong.items()))
