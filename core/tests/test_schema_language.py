"""The OpenAPI schema's language: the file generated outside a request (``manage.py spectacular --file``, published to
integrators) is English whatever the default language (Czech); served at ``/api/schema`` (what ``/api/docs`` reads)
it follows the request's language; the enums keep their names in both (``config.settings.schema``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client
from django.utils import translation

#: a compliance case's status as the schema describes it, in English and in Czech
OPEN_EN = "`open` - open: waiting for compliance"
OPEN_CS = "`open` - otevřeno: čeká na compliance"


def test_the_schema_file_is_english_although_the_default_language_is_czech(tmp_path: Path) -> None:
    out = tmp_path / "openapi.yaml"
    with translation.override("cs"):
        call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text(encoding="utf-8")
    assert OPEN_EN in text and OPEN_CS not in text
    assert "AmlCaseStatusEnum" in yaml.safe_load(text)["components"]["schemas"]


@pytest.mark.django_db
def test_the_served_schema_and_so_the_docs_follow_the_request_language() -> None:
    schemas = {}
    for lang, present, absent in (("cs", OPEN_CS, OPEN_EN), ("en", OPEN_EN, OPEN_CS)):
        r = Client(headers={"accept-language": lang}).get("/api/schema")
        assert r.status_code == 200
        text = r.content.decode()
        assert present in text and absent not in text, lang
        schemas[lang] = yaml.safe_load(text)["components"]["schemas"]
    assert "AmlCaseStatusEnum" in schemas["cs"]
    assert set(schemas["cs"]) == set(schemas["en"])  # the same component names: one client fits both
    docs = Client(headers={"accept-language": "cs"}).get("/api/docs")
    assert docs.status_code == 200 and "lang=" not in docs.content.decode()  # the browser's language decides
