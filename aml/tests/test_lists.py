"""Sanctions and PEP screening against the imported lists (the AML law 253/2008 Sb., the international sanctions
act 69/2006 Sb.): the EU, UN and Czech national lists and the operator's PEP list imported from the files an
operator downloads (written here in the lists' formats, fictitious persons), versioned, matched the way
aml/matching.py explains, each hit shown to staff; a new version re-screens every live player through the task."""

from __future__ import annotations

import io
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
import time_machine
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from aml import errors, services
from aml.list_parsers import parse_cz, parse_eu, parse_pep_csv, parse_un
from aml.models import (
    AmlProfile,
    ComplianceCase,
    PepClaim,
    ScreeningListEntry,
    ScreeningListVersion,
    ScreeningRun,
)
from aml.selectors import compliance_refusal
from aml.services import case_decide, pep_claim_record, screening_due, screening_list_import, screening_run
from core import clock
from core.audit import Actor
from core.errors import STAFF_PERMISSION_REQUIRED, DomainError
from core.models import AuditEvent
from core.tests.test_celery_worker import worker_env  # noqa: F401 - a fixture
from tests.kit.accounts import birth_number_for
from tests.kit.aml import SYSTEM, client, make_player, make_staff
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
LISTS = Path(__file__).parent / "lists"
API = "/api/v1/aml"


def iso(value) -> str:
    assert value is not None
    return value.isoformat()


def read(name: str) -> bytes:
    return (LISTS / name).read_bytes()


def eu_next(
    *,
    generated: str = "2026-11-27T17:00:00.000+01:00",
    extra: str = "",
    replace: tuple[str, str] = ("", ""),
) -> bytes:
    """The test EU file republished: another generation time, maybe one more entity or one entry changed."""
    text = read("eu_fsf.xml").decode()
    text = text.replace('generationDate="2026-11-20T17:35:12.456+01:00"', f'generationDate="{generated}"')
    if replace[0]:
        assert replace[0] in text
        text = text.replace(*replace)
    return text.replace("</export>", extra + "</export>").encode()


NEW_PERSON = """
  <sanctionEntity designationDetails="" unitedNationId="" euReferenceNumber="EU.9100.01" logicalId="910001">
    <regulation regulationType="amendment" organisationType="council" publicationDate="2026-11-27"
                entryIntoForceDate="2026-11-27" numberTitle="2026/9999 (OJ L)" programme="RUS" logicalId="910002">
      <publicationUrl>https://eur-lex.europa.eu/eli/reg/2026/9999/oj</publicationUrl>
    </regulation>
    <subjectType code="person" classificationCode="P"/>
    <nameAlias firstName="Bohumil" lastName="Nověpřidaný" wholeName="Bohumil Nověpřidaný" gender="M" strong="true"
               regulationLanguage="en" logicalId="910003"/>
    <birthdate circa="false" calendarType="GREGORIAN" birthdate="1977-07-07" dayOfMonth="7" monthOfYear="7"
               year="1977" countryDescription="UNKNOWN" regulationLanguage="en" logicalId="910004"/>
  </sanctionEntity>
"""


@pytest.fixture
def imported(settings):
    """Production's list: the imported EU, UN and national lists (all three required), threshold 85."""
    settings.AML_SCREENING_LIST = "imported"
    settings.AML_SCREENING_REQUIRED_SOURCES = ["eu", "un", "cz"]
    settings.AML_SCREENING_MATCH_THRESHOLD = 85
    return settings


# the national list's entries have no identifier: the reference is a hash of the first name and the birth dates
CZ_PERSON, CZ_ENTITY = "CZ-a9e83b2467c6f388", "CZ-bfdc4433427a9b29"


def import_all(commit=None):
    for source, name in (("eu", "eu_fsf.xml"), ("un", "un_consolidated.xml"), ("cz", "cz_national.csv")):
        screening_list_import(source=source, data=read(name), file_name=name, actor=SYSTEM)


def person(given: str, surname: str, dob: str, sex: str = "M", status: str = "temporary"):
    d = date.fromisoformat(dob)
    return make_player(
        status=status,
        aml_identified_at=None,
        personal_data={
            "given_names": given,
            "surname": surname,
            "date_of_birth": dob,
            "sex": sex,
            "birth_number": birth_number_for(d, sex=sex, serial=11),
        },
    )


def staff_with(*codenames: str):
    user = make_staff()
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="aml", codename__in=codenames))
    return user


# The files ----------------------------------------------------------------------------------------------------------


def test_the_eu_file_is_read_with_its_aliases_birth_dates_programmes_and_publication_time():
    parsed = parse_eu(read("eu_fsf.xml"))
    assert iso(parsed.published_at) == "2026-11-20T17:35:12.456000+01:00"
    by_ref = {e.reference: e for e in parsed.entries}
    assert len(by_ref) == 6
    ivan = by_ref["EU.9001.77"]
    assert (ivan.subject_type, ivan.programme, ivan.birth_dates, ivan.citizenships) == (
        "person",
        "UKR",
        ["1971-03-14"],
        ["RU"],
    )
    names, normalised = ivan.matching_names()
    # the third alias ("Ivan Petrovic SANKCIONOVANY") is the first one, normalised: stored once
    assert names == ["Ivan Petrovič Sankcionovaný", "Иван Петрович Санкционованый"]
    assert normalised == ["ivan petrovic sankcionovany", "ivan petrovich sanktsionovanyi"]
    assert by_ref["EU.9002.12"].birth_dates == ["1958", "1961-09-02"]  # a year-only date and a full one
    assert by_ref["EU.9003.05"].birth_dates == ["1965"]
    assert by_ref["EU.9005.18"].birth_dates == ["1979/1981"]  # circa 1980: a year either side
    assert by_ref["EU.9004.40"].birth_dates == []
    assert by_ref["EU.9006.90"].subject_type == "entity"


def test_the_un_file_joins_the_name_parts_and_reads_each_kind_of_birth_date():
    parsed = parse_un(read("un_consolidated.xml"))
    assert iso(parsed.published_at) == "2026-11-19T09:00:03.127000+00:00"
    by_ref = {e.reference: e for e in parsed.entries}
    khaled = by_ref["QDi.901"]
    assert khaled.names[:1] == ["KHALED AHMAD HUSSEIN"] and "Chaled Husajn" in khaled.names
    assert (khaled.birth_dates, khaled.programme) == (["1969-07-01"], "Al-Qaida")
    assert by_ref["KPi.950"].birth_dates == ["1958/1963"]  # BETWEEN
    assert by_ref["LYi.930"].birth_dates == ["1974/1976"]  # APPROXIMATELY 1975
    assert by_ref["KPi.950"].names == ["RI WON HO", "리원호"]  # an empty alias is no name
    assert by_ref["QDe.990"].subject_type == "entity"


def test_the_national_list_and_the_pep_list_are_read_in_their_documented_layouts():
    cz = parse_cz(read("cz_national.csv"))
    assert iso(cz.published_at) == "2026-10-01T00:00:00+02:00"  # the latest change of a row, midnight in Prague
    assert [(e.reference, e.subject_type) for e in cz.entries] == [(CZ_PERSON, "person"), (CZ_ENTITY, "entity")]
    pep = parse_pep_csv(read("pep.csv"))  # semicolons, as a Czech spreadsheet saves it
    assert pep.published_at is None
    assert [(e.reference, e.names, e.birth_dates, e.details["position"]) for e in pep.entries] == [
        ("P-001", ["Marie Ministrová", "Maria Ministrova", "Marie Ministrova"], ["1975-06-30"], "minister of finance"),
        ("P-002", ["Petr Poslanec"], ["1968"], "member of parliament"),
    ]
    comma = parse_pep_csv("reference,name,birth_date\nP-9,Jan Veřejný,1950-01-01\n".encode())
    assert [(e.reference, e.names) for e in comma.entries] == [("P-9", ["Jan Veřejný"])]


def test_the_command_imports_a_file_as_a_version_with_its_hash_counts_and_importer():
    out = io.StringIO()
    call_command("aml_list_import", "--source", "eu", str(LISTS / "eu_fsf.xml"), stdout=out)
    version = ScreeningListVersion.objects.get()
    import hashlib

    assert version.sha256 == hashlib.sha256(read("eu_fsf.xml")).hexdigest()
    assert (version.source, version.entry_count, version.person_count, version.name_count) == ("eu", 6, 5, 7)
    assert iso(version.published_at) == "2026-11-20T16:35:12.456000+00:00"
    assert version.imported_by.startswith("manage.py aml_list_import") and version.file_name == "eu_fsf.xml"
    assert f"eu version {version.pk}" in out.getvalue() and "6 entries (5 persons, 7 names)" in out.getvalue()
    entry = ScreeningListEntry.objects.get(version=version, reference="EU.9001.77")
    assert entry.match_names == ["ivan petrovic sankcionovany", "ivan petrovich sanktsionovanyi"]
    assert entry.details["url"].startswith("https://eur-lex.europa.eu/") and len(entry.fingerprint) == 64
    event = AuditEvent.objects.get(action="aml.screening_list_imported")
    assert event.object_id == str(version.pk) and event.details["entries"] == 6


def test_importing_the_same_file_again_changes_nothing(imported):
    import_all()
    counts = (
        ScreeningListVersion.objects.count(),
        ScreeningListEntry.objects.count(),
        AuditEvent.objects.count(),
        ScreeningRun.objects.count(),
    )
    out = io.StringIO()
    call_command("aml_list_import", "--source", "eu", str(LISTS / "eu_fsf.xml"), stdout=out)
    assert "already imported (nothing changed)" in out.getvalue()
    version, created = screening_list_import(source="un", data=read("un_consolidated.xml"), actor=SYSTEM)
    assert created is False and version.source == "un"
    assert (
        ScreeningListVersion.objects.count(),
        ScreeningListEntry.objects.count(),
        AuditEvent.objects.count(),
        ScreeningRun.objects.count(),
    ) == counts


def test_a_file_older_than_the_current_version_is_refused_a_newer_one_becomes_current():
    screening_list_import(source="eu", data=read("eu_fsf.xml"), actor=SYSTEM)
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=eu_next(generated="2026-11-20T17:35:12.455+01:00"), actor=SYSTEM)
    assert exc.value.code == errors.LIST_OUTDATED.code
    same_time = eu_next(generated="2026-11-20T17:35:12.456+01:00", extra=NEW_PERSON)  # a correction, same time
    newer, created = screening_list_import(source="eu", data=same_time, actor=SYSTEM)
    assert created and newer.entry_count == 7
    assert ScreeningListVersion.objects.filter(source="eu").order_by("-id").first() == newer


@pytest.mark.parametrize(
    ("source", "data", "code"),
    [
        ("un", (LISTS / "eu_fsf.xml").read_bytes(), errors.LIST_INVALID.code),  # the EU file declared as the UN's
        ("eu", b"<export generationDate='2026-01-01T00:00:00Z'><sanctionEntity>", errors.LIST_INVALID.code),
        ("eu", b"", errors.LIST_INVALID.code),
        ("eu", b"<export generationDate='2026-01-01T00:00:00Z'></export>", errors.LIST_EMPTY.code),
        ("eu", b"<export><sanctionEntity/></export>", errors.LIST_INVALID.code),  # no publication time
        (
            "eu",
            b'<?xml version="1.0"?><!DOCTYPE export [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            b'<export generationDate="2026-01-01T00:00:00Z"><sanctionEntity euReferenceNumber="X"><nameAlias '
            b'wholeName="&b;"/></sanctionEntity></export>',
            errors.LIST_INVALID.code,
        ),  # entity expansion
        (
            "un",
            b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY x SYSTEM "file:///etc/passwd">]><CONSOLIDATED_LIST '
            b'dateGenerated="2026-01-01T00:00:00Z"><INDIVIDUALS><INDIVIDUAL><FIRST_NAME>&x;</FIRST_NAME>'
            b"</INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>",
            errors.LIST_INVALID.code,
        ),  # an external entity
        (
            "cz",
            b'<nationalSanctionsList published="2026-01-01"><subject reference="A" type="person"><name>X</name>'
            b"</subject></nationalSanctionsList>",
            errors.LIST_INVALID.code,
        ),  # the layout this project once invented
        (
            "cz",
            "Příjmení fyzické osoby/název právnické osoby/označení nebo název entity,Jméno fyzické osoby,Stav zápisu,"
            "Datum narození fyzické osoby\nNěkdo,Jan,neplatný,1.1.1970\n".encode(),
            errors.LIST_INVALID.code,
        ),
        ("pep", b"reference;position\nP-1;mayor\n", errors.LIST_INVALID.code),  # no name column
        ("pep", "reference;name;birth_date\nP-1;Jan Veřejný;1.1.1950\n".encode(), errors.LIST_INVALID.code),
        ("pep", b"\xff\xfe", errors.LIST_INVALID.code),
        ("ofac", b"x", errors.LIST_SOURCE_UNKNOWN.code),
    ],
)
def test_a_file_not_of_the_declared_format_is_refused_and_nothing_is_stored(source, data, code):
    with pytest.raises(DomainError) as exc:
        screening_list_import(source=source, data=data, actor=SYSTEM)
    assert exc.value.code == code
    assert not ScreeningListVersion.objects.exists() and not ScreeningListEntry.objects.exists()


def test_a_list_file_with_a_doctype_is_refused_before_any_entity_is_read():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE export [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
        b'<export generationDate="2026-01-01T00:00:00Z"><sanctionEntity euReferenceNumber="X"><nameAlias '
        b'wholeName="&b;"/></sanctionEntity></export>'
    )
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=bomb, actor=SYSTEM)
    assert "DOCTYPE is not allowed" in exc.value.details["reason"]
    plain = (
        b'<!DOCTYPE export><export generationDate="2026-01-01T00:00:00Z"><sanctionEntity euReferenceNumber="X">'
        b'<subjectType code="person"/><nameAlias wholeName="Jan Novak"/></sanctionEntity></export>'
    )
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=plain, actor=SYSTEM)
    assert "DOCTYPE is not allowed" in exc.value.details["reason"]
    assert screening_list_import(source="eu", data=plain.replace(b"<!DOCTYPE export>", b""), actor=SYSTEM)[1]


def test_a_file_over_the_size_limit_is_refused(settings):
    data = read("eu_fsf.xml")
    settings.AML_SCREENING_LIST_MAX_BYTES = len(data) - 1
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=data, actor=SYSTEM)
    assert exc.value.code == errors.LIST_TOO_LARGE.code
    settings.AML_SCREENING_LIST_MAX_BYTES = len(data)
    assert screening_list_import(source="eu", data=data, actor=SYSTEM)[1] is True


def test_the_command_reports_a_refused_file():
    with pytest.raises(CommandError, match="aml.list_invalid"):
        call_command("aml_list_import", "--source", "un", str(LISTS / "eu_fsf.xml"), stdout=io.StringIO())


# Matching ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "surname", "dob", "sex", "entry"),
    [
        ("Ivan", "Sankcionovaný", "1971-03-14", "M", "eu:EU.9001.77"),  # without the patronymic
        ("IVAN", "SANKCIONOVANY", "1971-03-14", "M", "eu:EU.9001.77"),  # case and diacritics
        ("Sankcionovaný", "Ivan", "1971-03-14", "M", "eu:EU.9001.77"),  # word order
        ("Ivan Petrovič", "Sankcionovaný", "1971-03-14", "M", "eu:EU.9001.77"),
        ("Ivan", "Sankcionovaný", "1971-03-15", "M", None),  # another full birth date: another person
        ("Oleg", "Zamoroženyj", "1958-06-01", "M", "eu:EU.9002.12"),  # the Cyrillic name, transliterated; year only
        ("Oleg", "Zamoroženyj", "1961-09-02", "M", "eu:EU.9002.12"),  # its other (full) birth date
        ("Oleg", "Zamoroženyj", "1961-09-03", "M", None),
        ("Olga", "Zmrazená", "1965-01-01", "F", "eu:EU.9003.05"),  # a year-only list date: the whole year
        ("Olga", "Zmrazená", "1965-12-31", "F", "eu:EU.9003.05"),
        ("Olga", "Zmrazená", "1966-01-01", "F", None),
        ("Olga", "Zmrazová", "1965-05-05", "F", None),  # near miss: score 84.6, below the threshold 85
        (
            "Muhammad",
            "Al Rashid",
            "1990-02-02",
            "M",
            "eu:EU.9004.40",
        ),  # a transliteration variant; no birth date listed
        ("Kateřina", "Přibližná", "1979-01-01", "F", "eu:EU.9005.18"),  # circa 1980
        ("Kateřina", "Přibližná", "1981-12-31", "F", "eu:EU.9005.18"),
        ("Kateřina", "Přibližná", "1978-12-31", "F", None),
        ("Khaled", "Hussein", "1969-07-01", "M", "un:QDi.901"),  # two of the three name parts
        ("Chaled", "Husajn", "1969-07-01", "M", "un:QDi.901"),  # a (low quality) alias
        ("Won Ho", "Ri", "1963-12-31", "M", "un:KPi.950"),  # born between 1958 and 1963
        ("Won Ho", "Ri", "1957-12-31", "M", None),
        ("Zdeněk", "Odhadnutý", "1976-06-06", "M", "un:LYi.930"),  # approximately 1975
        ("Jaroslav", "Zakázaný", "1980-05-05", "M", f"cz:{CZ_PERSON}"),
        ("Jaroslaw", "Zakazany", "1980-05-05", "M", f"cz:{CZ_PERSON}"),  # a variant of the "/" separated names
        ("Jaroslav", "Zakázaný", "1981-05-05", "M", None),  # the amended (superseded) version's birth date
        ("Oldřich", "Vyřazený", "1970-03-03", "M", None),  # a withdrawn (zrušen) entry
        ("Jaroslav", "Zakázaný", "1980-05-06", "M", None),
        ("Zakázaná", "Společnost", "1980-05-05", "F", None),  # an entity's name is not a person's list entry
    ],
)
def test_a_player_matches_an_entry_by_name_alias_and_birth_date(imported, given, surname, dob, sex, entry):
    import_all()
    run = screening_run(player=person(given, surname, dob, sex), actor=SYSTEM)
    assert run.result == ("hit" if entry else "clear"), run.matches
    assert [m["entry_id"] for m in run.matches] == ([entry] if entry else [])


def test_each_hit_keeps_its_score_the_name_that_scored_and_the_list_entry(imported):
    import_all()
    player = person("Muhammad", "Al Rashid", "1990-02-02")
    run = screening_run(player=player, actor=SYSTEM)
    [m] = run.matches
    entry = ScreeningListEntry.objects.get(reference="EU.9004.40")
    assert (m["score"], m["matched_name"], m["source"], m["reference"], m["programme"], m["list"]) == (
        88.9,
        "Mohammed Al-Rashid",
        "eu",
        "EU.9004.40",
        "TAQA",
        "sanctions",
    )
    assert (m["list_entry_id"], m["list_version_id"]) == (entry.pk, entry.version_id)
    assert run.list_version == ".".join(f"{v.source}{v.pk}" for v in ScreeningListVersion.objects.order_by("source"))
    case = ComplianceCase.objects.get(player=player)
    assert (case.kind, case.blocking, case.status) == ("screening_hit", True, "open")
    assert "EU.9004.40" in case.summary and "score 88.9" in case.summary and "Mohammed Al-Rashid" in case.summary
    # staff see it: the compliance queue (API) and the case page (admin)
    rows = client(make_staff(role="compliance")).get(f"{API}/staff/cases").json()["results"]
    [hit] = [r["screening_hit"] for r in rows if r["player"] == player.pk]
    assert hit == {
        "score": 88.9,
        "matched_name": "Mohammed Al-Rashid",
        "list": "sanctions",
        "source": "eu",
        "reference": "EU.9004.40",
        "programme": "TAQA",
        "name": "Mohammed Al-Rashid",
        "date_of_birth": "",
        "entry_id": "eu:EU.9004.40",
        "list_version_id": entry.version_id,
        "list_entry_id": entry.pk,
    }
    admin = Client()
    admin.force_login(make_staff(superuser=True))
    page = admin.get(f"/admin/aml/compliancecase/{case.pk}/change/").content.decode()
    for text in ("88.9", "Mohammed Al-Rashid", "EU.9004.40", "TAQA", f"/admin/aml/screeninglistentry/{entry.pk}/"):
        assert text in page
    assert admin.get(f"/admin/aml/screeninglistentry/{entry.pk}/change/").status_code == 200


def test_the_threshold_is_a_setting_and_a_score_at_or_above_it_is_a_hit(imported):
    import_all()
    near = person("Olga", "Zmrazová", "1965-05-05", "F")
    assert screening_run(player=near, actor=SYSTEM).result == "clear"  # 84.6 < 85
    imported.AML_SCREENING_MATCH_THRESHOLD = 84
    run = screening_run(player=near, actor=SYSTEM)
    assert run.result == "hit" and run.matches[0]["score"] == 84.6


def test_the_pep_list_is_matched_like_the_sanctions_lists(imported):
    import_all()
    out = io.StringIO()
    call_command("aml_list_import", "--source", "pep", str(LISTS / "pep.csv"), "--published", "2026-11-01", stdout=out)
    version = ScreeningListVersion.objects.get(source="pep")
    assert iso(version.published_at) == "2026-10-31T23:00:00+00:00"  # midnight in Prague
    minister = person("Maria", "Ministrova", "1975-06-30", "F")
    run = screening_run(player=minister, actor=SYSTEM)
    assert [(m["entry_id"], m["list"], m["note"]) for m in run.matches] == [("pep:P-001", "pep", "minister of finance")]
    assert refusal_code(compliance_refusal(minister, "withdrawal")) == errors.COMPLIANCE_REVIEW.code
    other = person("Petr", "Poslanec", "1969-01-01")
    assert screening_run(player=other, actor=SYSTEM).result == "clear"  # the listed year is 1968


def test_the_imported_list_answers_only_once_every_required_source_is_imported(imported):
    player = person("Jana", "Bezúhonná", "1990-01-01", "F")
    run = screening_run(player=player, actor=SYSTEM)
    assert run.result == "unavailable" and "no imported version" in run.error
    screening_list_import(source="eu", data=read("eu_fsf.xml"), actor=SYSTEM)
    run = screening_run(player=player, actor=SYSTEM)
    assert run.result == "unavailable" and "un, cz" in run.error
    imported.AML_SCREENING_REQUIRED_SOURCES = ["eu"]
    assert screening_run(player=player, actor=SYSTEM).result == "clear"


# A new version re-screens every live player ------------------------------------------------------------------------


def test_a_new_version_re_screens_every_live_player_through_the_task_and_reopens_nothing_cleared(imported, commit):
    clean = person("Jana", "Bezúhonná", "1990-01-01", "F", status="active")
    ivan = person("Ivan", "Sankcionovaný", "1971-03-14")
    newcomer = person("Bohumil", "Nověpřidaný", "1977-07-07")
    closed = person("Bohumil", "Nověpřidaný", "1977-07-07", status="closed")
    with commit():
        import_all()  # each import enqueues the re-screening after commit; the task runs (eager, in-process)
    assert {p: ScreeningRun.objects.filter(player=p).count() for p in (clean, ivan, newcomer, closed)} == {
        clean: 1,
        ivan: 1,
        newcomer: 1,
        closed: 0,
    }
    case = ComplianceCase.objects.get(player=ivan)
    case_decide(
        case=case, decision="cleared", note="another Ivan: checked the passport", actor=Actor.staff(make_staff())
    )
    assert not ComplianceCase.objects.filter(player=newcomer).exists()

    with commit():
        v2, created = screening_list_import(source="eu", data=eu_next(extra=NEW_PERSON), actor=SYSTEM)
    assert created
    for p in (clean, ivan, newcomer):
        last = ScreeningRun.objects.filter(player=p).order_by("-ran_at", "-id").first()
        assert last is not None
        assert ScreeningRun.objects.filter(player=p).count() == 2 and f"eu{v2.pk}" in last.list_version
        assert last.trigger == "periodic" and AmlProfile.objects.get(player=p).list_version == last.list_version
    assert not ScreeningRun.objects.filter(player=closed).exists()
    assert ComplianceCase.objects.filter(player=newcomer, kind="screening_hit", status="open").count() == 1
    assert list(ComplianceCase.objects.filter(player=ivan).values_list("status", flat=True)) == ["cleared"]

    from aml.tasks import screening_rescreen

    assert screening_rescreen.apply().get() == {"claimed": 0, "batches": 0, "more": False}  # nothing twice
    assert ScreeningRun.objects.filter(player=clean).count() == 2

    # the same entry with one more alias: a new match, a new case (the cleared one stays cleared)
    changed = eu_next(
        generated="2026-12-01T10:00:00.000+01:00",
        extra=NEW_PERSON,
        replace=('wholeName="Ivan Petrovic SANKCIONOVANY"', 'wholeName="Ivan Sankcionovany-Petrov"'),
    )
    with commit():
        screening_list_import(source="eu", data=changed, actor=SYSTEM)
    assert sorted(ComplianceCase.objects.filter(player=ivan).values_list("status", flat=True)) == ["cleared", "open"]


def test_a_screening_job_holding_a_profile_keeps_the_next_one_off_it_until_its_lease_ends(imported):
    import_all()
    player = person("Jana", "Bezúhonná", "1990-01-01", "F")
    screening_run(player=player, actor=SYSTEM)
    t0 = clock.now().replace(microsecond=0)
    AmlProfile.objects.filter(player=player).update(list_version="eu0.un0", claimed_until=t0 + timedelta(minutes=30))
    with time_machine.travel(t0 + timedelta(minutes=30) - timedelta(seconds=1), tick=False):
        assert screening_due()["claimed"] == 0  # the list changed, but another job holds the row
    with time_machine.travel(t0 + timedelta(minutes=30), tick=False):
        assert screening_due()["claimed"] == 1
    assert ScreeningRun.objects.filter(player=player).count() == 2


def test_the_rescreening_stops_after_its_time_and_says_more_is_left(imported):
    from aml.services import screening_rescreen

    import_all()
    for i in range(3):
        person("Jana", f"Bezúhonná{'abc'[i]}", "1990-01-01", "F")
    out = screening_rescreen(batch=1, seconds=0)
    assert (out["claimed"], out["batches"], out["more"]) == (1, 1, True)
    rest = screening_rescreen(batch=1)
    assert (rest["claimed"], rest["more"]) == (2, False)


# Staff upload -------------------------------------------------------------------------------------------------------


def upload(name: str, source: str, **extra):
    return {"source": source, "file": SimpleUploadedFile(name, read(name), content_type="application/xml"), **extra}


def test_the_staff_upload_needs_its_permission_and_a_repeat_changes_nothing(imported, commit):
    url = f"{API}/staff/screening-lists/import"
    assert client().post(url, upload("eu_fsf.xml", "eu"), format="multipart").status_code == 401
    assert (
        client(person("Jana", "Hráčová", "1990-01-01", "F"))
        .post(url, upload("eu_fsf.xml", "eu"), format="multipart")
        .status_code
        == 403
    )
    r = client(staff_with("view_screeninglistversion")).post(url, upload("eu_fsf.xml", "eu"), format="multipart")
    assert r.status_code == 403 and r.json()["error"]["code"] == STAFF_PERMISSION_REQUIRED.code
    assert not ScreeningListVersion.objects.exists()
    officer = staff_with("import_screening_list", "view_screeninglistversion")
    waiting = person("Ivan", "Sankcionovaný", "1971-03-14")
    for source, name in (("un", "un_consolidated.xml"), ("cz", "cz_national.csv")):
        screening_list_import(source=source, data=read(name), actor=SYSTEM)
    with commit():
        r = client(officer).post(url, upload("eu_fsf.xml", "eu"), format="multipart")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["created"] is True and body["version"]["entry_count"] == 6
    assert body["version"]["imported_by"] == officer.username
    assert ComplianceCase.objects.filter(player=waiting, kind="screening_hit").count() == 1  # re-screened
    r = client(officer).post(url, upload("eu_fsf.xml", "eu"), format="multipart")
    assert r.status_code == 200 and r.json()["created"] is False
    assert ScreeningListVersion.objects.filter(source="eu").count() == 1
    r = client(officer).post(url, upload("eu_fsf.xml", "un"), format="multipart")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.LIST_INVALID.code
    rows = client(officer).get(f"{API}/staff/screening-lists?source=eu").json()["results"]
    assert [(v["source"], v["entry_count"]) for v in rows] == [("eu", 6)]
    assert client(staff_with()).get(f"{API}/staff/screening-lists").status_code == 403


def test_the_admin_import_form_imports_for_staff_with_the_permission_only():
    officer = staff_with("import_screening_list", "view_screeninglistversion", "view_screeninglistentry")
    browser = Client()
    browser.force_login(officer)
    page = browser.get("/admin/aml/screeninglistversion/")
    assert page.status_code == 200 and "/admin/aml/screeninglistversion/import/" in page.content.decode()
    r = browser.post(
        "/admin/aml/screeninglistversion/import/",
        {"source": "cz", "file": SimpleUploadedFile("cz.csv", read("cz_national.csv"))},
    )
    version = ScreeningListVersion.objects.get()
    assert r.status_code == 302 and r["Location"].endswith(f"/admin/aml/screeninglistversion/{version.pk}/change/")
    assert version.imported_by == officer.username and version.entry_count == 2
    found = browser.get("/admin/aml/screeninglistentry/?q=jaroslaw")  # an alias, written without its accents too
    assert found.status_code == 200 and CZ_PERSON in found.content.decode()
    viewer = Client()
    viewer.force_login(staff_with("view_screeninglistversion"))
    r = viewer.post(
        "/admin/aml/screeninglistversion/import/",
        {"source": "eu", "file": SimpleUploadedFile("eu.xml", read("eu_fsf.xml"))},
    )
    assert r.status_code == 403 and ScreeningListVersion.objects.count() == 1  # the role lacks the permission


# PEP claims of another identification source -----------------------------------------------------------------------


def test_a_pep_claim_opens_one_blocking_case_per_source_and_a_no_changes_nothing():
    player = person("Věra", "Veřejná", "1975-06-30", "F")
    pep_claim_record(player=player, is_pep=False, source="bankid", actor=SYSTEM)
    assert not ComplianceCase.objects.filter(player=player).exists()
    claim = pep_claim_record(player=player, is_pep=True, source="bankid", actor=SYSTEM)
    case = ComplianceCase.objects.get(player=player)
    assert (case.kind, case.blocking, case.status, case.details["declared_relation"]) == (
        "pep_claimed",
        True,
        "open",
        None,
    )
    assert "bankid" in case.summary and case.anchor == f"pep_claim:{claim.pk}"
    screening_run(player=player, actor=SYSTEM)
    assert refusal_code(compliance_refusal(player, "withdrawal")) == errors.COMPLIANCE_REVIEW.code
    case_decide(
        case=case, decision="cleared", note="PEP accepted after enhanced due diligence", actor=Actor.staff(make_staff())
    )
    pep_claim_record(player=player, is_pep=True, source="bankid", actor=SYSTEM)  # the next identification says so too
    assert ComplianceCase.objects.filter(player=player).count() == 1
    assert PepClaim.objects.filter(player=player).count() == 3
    assert AuditEvent.objects.filter(action="aml.pep_claim_recorded", details__player_id=player.pk).count() == 3
    with pytest.raises(DomainError) as exc:
        pep_claim_record(player=player, is_pep=True, source=" ", actor=SYSTEM)
    assert exc.value.code == errors.PEP_CLAIM_INVALID.code


def test_the_index_scores_every_candidate_exactly_as_name_score_does():
    """The bulk search (ratio in C, token_set only where a word is shared) gives what name_score defines."""
    from aml.list_parsers import PARSERS
    from aml.matching import IndexedEntry, NameIndex, name_score, normalised_name

    entries, k = [], 0
    for source, name in (("eu", "eu_fsf.xml"), ("un", "un_consolidated.xml"), ("cz", "cz_national.csv")):
        for listed in PARSERS[source](read(name)).entries:
            names, normalised = listed.matching_names()
            k += 1
            entries.append(
                IndexedEntry(
                    pk=k,
                    source=source,
                    reference=listed.reference,
                    list_kind="sanctions",
                    programme="",
                    name=names[0],
                    names=tuple(names),
                    match_names=tuple(normalised),
                    birth_dates=(),
                    fingerprint="",
                    version_id=1,
                )
            )
    index = NameIndex(entries)
    queries = [
        "Ivan Sankcionovaný",
        "Olga Zmrazová",
        "Muhammad Al Rashid",
        "Chaled Husajn",
        "Ri Won",
        "Jan Novák",
        "Kateřina Přibližná Nováková",
        "Abu Khaled",
        "Zdeněk",
        "Oleg Zamoroženyj",
        "Jaroslaw Zakazany Trading",
    ]
    for q in queries:
        hits = {h.entry.reference: h for h in index.search(q, date(1970, 1, 1), 0)}
        candidates = index.candidates(tuple(normalised_name(q).split()))
        for e in entries:
            scored = [
                name_score(normalised_name(q), normalised)
                for n, (ei, _, normalised) in enumerate(index.names)
                if index.entries[ei] is e and n in candidates
            ]
            if scored:
                assert e.reference in hits and hits[e.reference].score == round(max(scored), 1), (q, e.reference)
            else:
                assert e.reference not in hits
    assert index.search("Muhammad Al Rashid", date(1970, 1, 1), 0)[0].score == 88.9


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_new_version_is_re_screened_by_a_real_celery_worker(worker_env, settings, monkeypatch):  # noqa: F811
    """The import asks for the re-screening after its commit; a real worker process (the configured broker, else
    the filesystem transport) runs aml.screening_rescreen against the committed version."""
    import os
    import time
    import uuid

    from aml import tasks
    from config.celery import app
    from core.tests.test_celery_worker import _reachable, _start_worker, stop_worker, transport_options

    settings.AML_SCREENING_LIST = "imported"
    settings.AML_SCREENING_REQUIRED_SOURCES = ["eu"]
    worker_env.update({"AML_SCREENING_LIST": "imported", "AML_SCREENING_REQUIRED_SOURCES": "eu"})
    listed = person("Ivan", "Sankcionovaný", "1971-03-14")
    clean = person("Jana", "Bezúhonná", "1990-01-01", "F")
    asked: list[tuple] = []
    monkeypatch.setattr(tasks.screening_rescreen, "delay_on_commit", lambda *a, **k: asked.append(a))
    version, created = screening_list_import(source="eu", data=read("eu_fsf.xml"), actor=SYSTEM)
    assert created and asked == [()]  # enqueued once, after the import committed

    configured = os.environ.get("CELERY_BROKER_URL", "")
    url = (
        configured
        if configured and not configured.startswith("filesystem") and _reachable(configured)
        else "filesystem://"
    )
    queue = f"test-{uuid.uuid4().hex[:8]}"
    proc = _start_worker(worker_env, url, queue)
    try:
        with app.connection_for_write(url, transport_options=transport_options(worker_env, url)) as conn:
            tasks.screening_rescreen.apply_async(queue=queue, connection=conn)  # type: ignore[call-arg]
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and ScreeningRun.objects.filter(player__in=[listed, clean]).count() < 2:
            time.sleep(0.3)
    finally:
        out = stop_worker(proc)
    runs = {r.player_id: r for r in ScreeningRun.objects.filter(player__in=[listed, clean])}
    assert len(runs) == 2, out
    assert (runs[listed.pk].result, runs[clean.pk].result) == ("hit", "clear")
    assert runs[listed.pk].list_version == f"eu{version.pk}"
    assert ComplianceCase.objects.filter(player=listed, kind="screening_hit", status="open").count() == 1
    print(f"re-screening ran in a worker on {url.split(':')[0]}")


CZ_HEADER = (
    "Příjmení fyzické osoby/název právnické osoby/označení nebo název entity ,Jméno fyzické osoby ,Stav zápisu,"
    "Poznámka ke stavu zápisu ,Datum narození fyzické osoby,Datum zápisu či jeho změny"
)


def test_the_national_list_keeps_only_entries_in_force_and_reads_the_ministry_s_irregular_quoting():
    data = (
        CZ_HEADER + "\n"
        'Starý/Stary,Petr,zrušen,"Zrušeno 2. 2. 2026, zapsán na seznam EU",1.1.1960,1. 1. 2026\n'
        '"""Skupina ""Vlk"" s.r.o.""",,platný,,,3.3.2026\n'
        'Nový,Pavel/Paul,platný,,"2. 2. 1977, 1978",4. 3. 2026\n'
    ).encode()
    parsed = parse_cz(data)
    assert iso(parsed.published_at) == "2026-03-04T00:00:00+01:00"  # the withdrawal's date counts as a change too
    assert [(e.subject_type, e.names, e.birth_dates) for e in parsed.entries] == [
        ("entity", ['Skupina "Vlk" s.r.o.'], []),
        ("person", ["Pavel Nový", "Paul Nový"], ["1977-02-02"]),
    ]


def test_the_national_list_s_older_layout_is_read_by_its_column_titles():
    data = (
        "Jméno fyzické osoby,Příjmení fyzické osoby/název právnické osoby/označení nebo název entity,"
        "Datum narození fyzické osoby,Další identifikační údaje,Datum zápisu,Omezující opatření,"
        "Číslo usnesení vlády\nIvan,Starší,7. 7. 1966,,20. 4. 2023,zmrazení,č. 300\n"
    ).encode()
    parsed = parse_cz(data)
    assert [(e.names, e.birth_dates, e.details["act"]) for e in parsed.entries] == [
        (["Ivan Starší"], ["1966-07-07"], "č. 300")
    ]
    assert iso(parsed.published_at) == "2023-04-20T00:00:00+02:00"


def test_a_list_published_in_the_future_is_refused_and_the_genuine_list_still_imports():
    """V-3: a file dated 2999 was accepted and refused every genuine list of its source after it."""
    future = read("eu_fsf.xml").replace(b'generationDate="', b'generationDate="2999', 1)
    future = re.sub(rb'generationDate="2999[^"]*"', b'generationDate="2999-01-01T00:00:00Z"', future)
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=future, actor=SYSTEM)
    assert exc.value.code == errors.LIST_INVALID.code and "future" in exc.value.details["reason"]
    assert not ScreeningListVersion.objects.exists()
    version, created = screening_list_import(source="eu", data=read("eu_fsf.xml"), actor=SYSTEM)
    assert created


def test_a_publication_time_within_the_clock_skew_is_accepted(settings):
    soon = (clock.now() + timedelta(minutes=settings.AML_LIST_CLOCK_SKEW_MINUTES - 1)).isoformat()
    data = re.sub(rb'generationDate="[^"]*"', f'generationDate="{soon}"'.encode(), read("eu_fsf.xml"))
    assert screening_list_import(source="eu", data=data, actor=SYSTEM)[1]


def test_compliance_withdraws_a_wrongly_imported_version_audited_and_everyone_is_screened_again(commit):
    genuine = read("eu_fsf.xml")
    wrong = re.sub(rb'generationDate="[^"]*"', b'generationDate="2026-12-01T00:00:00Z"', genuine).replace(
        b"</export>",
        b'<sanctionEntity euReferenceNumber="EU.WRONG"><subjectType code="person"/>'
        b'<nameAlias wholeName="Nobody Real"/></sanctionEntity></export>',
    )
    bad, _ = screening_list_import(source="eu", data=wrong, actor=SYSTEM)
    older = re.sub(rb'generationDate="[^"]*"', b'generationDate="2026-11-25T00:00:00Z"', genuine)
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=older, actor=SYSTEM)
    assert exc.value.code == errors.LIST_OUTDATED.code
    staff = make_staff()
    with commit() as callbacks:
        services.screening_list_withdraw(version=bad, actor=Actor.staff(staff), reason="wrong file")
    assert callbacks  # the re-screening is enqueued after the commit
    bad.refresh_from_db()
    assert bad.withdrawn_at is not None and bad.withdrawn_by == Actor.staff(staff).label
    event = AuditEvent.objects.get(action="aml.screening_list_withdrawn")
    assert event.details["reason"] == "wrong file"
    version, created = screening_list_import(source="eu", data=older, actor=SYSTEM)  # the genuine list again
    assert created
    with pytest.raises(DomainError) as exc:
        screening_list_import(source="eu", data=wrong, actor=SYSTEM)  # the withdrawn file is not taken back
    assert exc.value.code == errors.LIST_WITHDRAWN.code
    with pytest.raises(DomainError) as exc:
        services.screening_list_withdraw(version=bad, actor=Actor.staff(staff), reason="again")
    assert exc.value.code == errors.LIST_WITHDRAWN.code


def test_the_eu_birth_date_parts_are_read_under_both_spellings_of_their_attributes():
    head = (
        b'<export generationDate="2026-01-01T00:00:00Z"><sanctionEntity euReferenceNumber="EU.1">'
        b'<subjectType code="person"/><nameAlias wholeName="Jan Test"/>'
    )
    for attrs in (b'year="1970" monthOfYear="3" dayOfMonth="4"', b'year="1970" month="3" day="4"'):
        parsed = parse_eu(head + b"<birthdate " + attrs + b"/></sanctionEntity></export>")
        assert parsed.entries[0].birth_dates == ["1970-03-04"], attrs
