"""Parsers of the published sanctions list files and of the operator's PEP list (docs/aml.md, "Lists").

Each parser takes the file's bytes and returns a :class:`ParsedList`: the publication time read off the file and
the entries (persons and entities) with every spelling of their names and their birth dates in one grammar
(``YYYY-MM-DD``, ``YYYY-MM``, ``YYYY``, ``YYYY/YYYY`` for a range or an approximate date). Nothing here touches the
database; ``aml.services.lists`` stores what they return. ``PARSERS`` maps a source to its parser: a parser is
replaced there (say, when the Czech ministry publishes its list in a format of its own).

* ``eu``: the EU Financial Sanctions Files (FSF) XML, ``export`` root (namespace
  ``http://eu.europa.ec/fpi/fsd/export``), one ``sanctionEntity`` per listed person or entity with its
  ``subjectType``, ``nameAlias`` (``wholeName`` or first/middle/last name), ``birthdate`` (``birthdate`` or
  ``year``/``monthOfYear``/``dayOfMonth``, ``circa``, ``yearRangeFrom``/``yearRangeTo``), ``citizenship`` and
  ``regulation`` (``programme``); the reference is ``euReferenceNumber`` (else ``logicalId``); published:
  ``export/@generationDate``.
* ``un``: the UN Security Council Consolidated List XML: ``CONSOLIDATED_LIST/@dateGenerated``; ``INDIVIDUALS/
  INDIVIDUAL`` (``FIRST_NAME``.. ``FOURTH_NAME``, ``NAME_ORIGINAL_SCRIPT``, ``INDIVIDUAL_ALIAS/ALIAS_NAME``,
  ``INDIVIDUAL_DATE_OF_BIRTH`` with ``TYPE_OF_DATE`` EXACT / APPROXIMATELY / BETWEEN and ``DATE``, ``YEAR``,
  ``FROM_YEAR``, ``TO_YEAR``, ``REFERENCE_NUMBER``, ``UN_LIST_TYPE``) and ``ENTITIES/ENTITY``.
* ``cz``: the Czech national sanctions list as the Ministry of Foreign Affairs publishes it (CSV on its open-data
  page; :func:`parse_cz`): Czech column titles, one row per entry version (``platný`` / ``změněn`` / ``zrušen``),
  name variants separated by "/", irregular quoting.
* ``pep``: the operator's PEP list, CSV (UTF-8, comma or semicolon), header ``reference,name,aliases,birth_date,
  position,country`` (aliases and birth dates separated by ``|``); no publication time in the file.

XML is parsed with lxml with the settings defusedxml would insist on: no network, no entity resolution, no DTD
loading, ``huge_tree`` off, and a document with a ``DOCTYPE`` is refused outright (no entity expansion attack,
no external entity).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from lxml import etree  # lxml: ignore_missing_imports in pyproject.toml (no stubs pinned)

from aml.matching import normalised_name

PRAGUE = ZoneInfo("Europe/Prague")
PERSON, ENTITY = "person", "entity"
MAX_NAME = 300


class ListFormatError(ValueError):
    """The file is not a list of the declared format (the message says why)."""


@dataclass
class ListEntry:
    reference: str
    subject_type: str  # PERSON | ENTITY
    names: list[str]
    birth_dates: list[str] = field(default_factory=list)
    programme: str = ""
    citizenships: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def merge(self, other: ListEntry) -> None:
        """A reference listed twice in one file: one entry with the names and dates of both."""
        self.names += [n for n in other.names if n not in self.names]
        self.birth_dates += [d for d in other.birth_dates if d not in self.birth_dates]
        self.citizenships += [c for c in other.citizenships if c not in self.citizenships]

    def matching_names(self) -> tuple[list[str], list[str]]:
        """The names (first spelling of each normalised form, the primary first) and their normalised forms."""
        names, normalised = [], []
        for name in self.names:
            name = " ".join(name.split())[:MAX_NAME]
            key = normalised_name(name)
            if key and key not in normalised:
                names.append(name)
                normalised.append(key[:MAX_NAME])
        return names, normalised

    def fingerprint(self) -> str:
        """What matching reads of the entry: a changed name or birth date changes it (a new case may open)."""
        _, normalised = self.matching_names()
        data = [self.subject_type, sorted(normalised), sorted(set(self.birth_dates))]
        return hashlib.sha256(json.dumps(data).encode()).hexdigest()


@dataclass
class ParsedList:
    source: str
    published_at: datetime | None
    entries: list[ListEntry]


# XML --------------------------------------------------------------------------------------------------------------


def _iter_elements(data: bytes, tags: set[str]) -> Iterator[tuple[etree._Element, etree._Element]]:
    """(root, element) for each complete element whose local name is in ``tags``, parsed safely and streamed
    (each element is cleared after use, so a large file does not build one large tree)."""
    events = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    root = None
    try:
        for event, el in events:
            if root is None:
                root = el
                docinfo = el.getroottree().docinfo
                if docinfo.doctype or docinfo.internalDTD is not None:
                    raise ListFormatError("a DOCTYPE is not allowed in a list file")
            if event == "end" and etree.QName(el).localname in tags:
                yield root, el
                el.clear(keep_tail=False)
                parent = el.getparent()
                while parent is not None and el.getprevious() is not None:
                    del parent[0]
    except etree.XMLSyntaxError as exc:
        raise ListFormatError(f"not well-formed XML: {exc}") from None
    if root is None:
        raise ListFormatError("empty file")


def _root(data: bytes) -> etree._Element:
    """The root element only (its attributes: the publication time)."""
    for _event, el in etree.iterparse(
        io.BytesIO(data), events=("start",), resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    ):
        docinfo = el.getroottree().docinfo
        if docinfo.doctype or docinfo.internalDTD is not None:
            raise ListFormatError("a DOCTYPE is not allowed in a list file")
        return el
    raise ListFormatError("empty file")


def _safe_root(data: bytes) -> etree._Element:
    try:
        return _root(data)
    except etree.XMLSyntaxError as exc:
        raise ListFormatError(f"not well-formed XML: {exc}") from None


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


def _kids(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str) and _local(c) == name]


def _text(el: etree._Element, name: str) -> str:
    for c in _kids(el, name):
        return " ".join((c.text or "").split())
    return ""


def _published(value: str | None, what: str) -> datetime:
    """An ISO date or date-time of the file (a date alone is midnight in Prague)."""
    value = (value or "").strip()
    if not value:
        raise ListFormatError(f"the file has no publication time ({what})")
    try:
        if len(value) == 10:
            return datetime.combine(date.fromisoformat(value), time(0), tzinfo=PRAGUE)
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ListFormatError(f"unreadable publication time {value[:40]!r} ({what})") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=PRAGUE)


def _year(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if len(value) == 4 and value.isdigit() else None


def _full_date(value: str | None) -> str:
    value = (value or "").strip()[:10]
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        return ""


def _approximate(year: int) -> str:
    return f"{year - 1}/{year + 1}"


# EU Financial Sanctions Files ---------------------------------------------------------------------------------------


def _eu_birth(el: etree._Element) -> str:
    circa = (el.get("circa") or "").lower() == "true"
    full = _full_date(el.get("birthdate"))
    year = _year(el.get("year")) or (int(full[:4]) if full else None)
    first, last = _year(el.get("yearRangeFrom")), _year(el.get("yearRangeTo"))
    if first and last:
        return f"{min(first, last)}/{max(first, last)}"
    if year is None:
        return ""
    if circa:
        return _approximate(year)
    if full:
        return full
    # the published file writes monthOfYear / dayOfMonth; readers of it also name them month / day: both are read
    month = (el.get("monthOfYear") or el.get("month") or "").strip()
    day = (el.get("dayOfMonth") or el.get("day") or "").strip()
    if month.isdigit() and 1 <= int(month) <= 12:
        if day.isdigit():
            candidate = _full_date(f"{year:04d}-{int(month):02d}-{int(day):02d}")
            if candidate:
                return candidate
        return f"{year:04d}-{int(month):02d}"
    return f"{year:04d}"


def _eu_name(el: etree._Element) -> str:
    whole = (el.get("wholeName") or "").strip()
    if whole:
        return whole
    return " ".join(p for p in ((el.get(k) or "").strip() for k in ("firstName", "middleName", "lastName")) if p)


def parse_eu(data: bytes) -> ParsedList:
    root = _safe_root(data)
    if _local(root) != "export":
        raise ListFormatError(f"not an EU Financial Sanctions File (root {_local(root)!r}, expected 'export')")
    published = _published(root.get("generationDate"), "export/@generationDate")
    entries: list[ListEntry] = []
    for _, el in _iter_elements(data, {"sanctionEntity"}):
        subject = _kids(el, "subjectType")
        code = (subject[0].get("code") or "").lower() if subject else ""
        regulations = _kids(el, "regulation")
        programmes = sorted({r.get("programme") or "" for r in regulations} - {""})
        reference = (el.get("euReferenceNumber") or "").strip() or f"LID-{el.get('logicalId') or len(entries)}"
        entries.append(
            ListEntry(
                reference=reference[:100],
                subject_type=PERSON if code == "person" else ENTITY,
                names=[n for n in (_eu_name(a) for a in _kids(el, "nameAlias")) if n],
                birth_dates=[d for d in dict.fromkeys(_eu_birth(b) for b in _kids(el, "birthdate")) if d],
                programme=", ".join(programmes)[:200],
                citizenships=sorted({c.get("countryIso2Code") or "" for c in _kids(el, "citizenship")} - {""}),
                details={
                    "logical_id": el.get("logicalId") or "",
                    "un_id": el.get("unitedNationId") or "",
                    "designated": el.get("designationDate") or "",
                    "remark": _text(el, "remark")[:500],
                    "regulation": (regulations[0].get("numberTitle") or "") if regulations else "",
                    "url": _text(regulations[0], "publicationUrl") if regulations else "",
                },
            )
        )
    return ParsedList(source="eu", published_at=published, entries=_merged(entries))


# UN Security Council Consolidated List -----------------------------------------------------------------------------


def _un_birth(el: etree._Element) -> str:
    kind = _text(el, "TYPE_OF_DATE").upper()
    full = _full_date(_text(el, "DATE"))
    year = _year(_text(el, "YEAR")) or (int(full[:4]) if full else None)
    first, last = _year(_text(el, "FROM_YEAR")), _year(_text(el, "TO_YEAR"))
    if first and last:
        return f"{min(first, last)}/{max(first, last)}"
    if year is None:
        return ""
    if kind == "APPROXIMATELY":
        return _approximate(year)
    return full or f"{year:04d}"


def parse_un(data: bytes) -> ParsedList:
    root = _safe_root(data)
    if _local(root) != "CONSOLIDATED_LIST":
        raise ListFormatError(f"not the UN Consolidated List (root {_local(root)!r}, expected 'CONSOLIDATED_LIST')")
    published = _published(root.get("dateGenerated"), "CONSOLIDATED_LIST/@dateGenerated")
    entries: list[ListEntry] = []
    for _, el in _iter_elements(data, {"INDIVIDUAL", "ENTITY"}):
        person = _local(el) == "INDIVIDUAL"
        parts = [_text(el, k) for k in ("FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME")]
        names = [" ".join(p for p in parts if p), _text(el, "NAME_ORIGINAL_SCRIPT")]
        for alias in _kids(el, "INDIVIDUAL_ALIAS" if person else "ENTITY_ALIAS"):
            names.append(_text(alias, "ALIAS_NAME"))
        reference = _text(el, "REFERENCE_NUMBER") or f"DATAID-{_text(el, 'DATAID') or len(entries)}"
        births = [_un_birth(b) for b in _kids(el, "INDIVIDUAL_DATE_OF_BIRTH")] if person else []
        nationality = [" ".join((v.text or "").split()) for n in _kids(el, "NATIONALITY") for v in _kids(n, "VALUE")]
        entries.append(
            ListEntry(
                reference=reference[:100],
                subject_type=PERSON if person else ENTITY,
                names=[n for n in names if n],
                birth_dates=[d for d in dict.fromkeys(births) if d],
                programme=_text(el, "UN_LIST_TYPE")[:200],
                citizenships=[n for n in nationality if n],
                details={
                    "dataid": _text(el, "DATAID"),
                    "listed_on": _text(el, "LISTED_ON"),
                    "remark": _text(el, "COMMENTS1")[:500],
                },
            )
        )
    return ParsedList(source="un", published_at=published, entries=_merged(entries))


# Czech national sanctions list (the Ministry of Foreign Affairs' CSV) ----------------------------------------------


def _title(value: str) -> str:
    """A column title compared without case, accents, spacing and trailing spaces."""
    return normalised_name(value.replace("/", " "))


# The columns by their titles (the current layout; the older layout's titles where they differ).
CZ_COLUMNS = {
    "name": ("Příjmení fyzické osoby/název právnické osoby/označení nebo název entity",),
    "given": ("Jméno fyzické osoby",),
    "status": ("Stav zápisu",),
    "status_note": ("Poznámka ke stavu zápisu",),
    "birth": ("Datum narození fyzické osoby",),
    "nationality": ("Státní příslušnost fyzické osoby /sídlo právnické osoby",),
    "entered": ("Datum zápisu či jeho změny", "Datum zápisu"),
    "act": ("Právní předpis zápisu", "Číslo usnesení vlády"),
    "eu_provision": ("Ustanovení předpisu Evropské unie, jehož skutkovou podstatu subjekt jednáním naplnil",),
    "conduct": ("Popis postižitelného jednání",),
    "measures": ("Uplatňovaná omezující opatření", "Omezující opatření"),
    "other": ("Další identifikační údaje",),
}
CZ_VALID, CZ_AMENDED, CZ_CANCELLED = "platný", "změněn", "zrušen"
_CZ_DATE = re.compile(r"(\d{1,2})\s*\.\s*(\d{1,2})\s*\.\s*(\d{4})")
_CZ_YEAR = re.compile(r"(?<![\d.])(\d{4})(?![\d.])")
CZ_MAX_VARIANT_NAMES = 24


def _cz_rows(data: bytes) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of the Ministry's CSV. Its quoting is irregular (runs of repeated quotes around and
    inside cells): read as standard CSV first; when a row then has more cells than the header, read again with
    every run of three or more quotes as one. Quotes left around a whole cell are removed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ListFormatError("the national sanctions list must be UTF-8") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")

    def read(source: str) -> list[list[str]]:
        try:
            rows = list(csv.reader(io.StringIO(source), delimiter=",", strict=False))
        except csv.Error as exc:
            raise ListFormatError(f"unreadable CSV: {exc}") from None
        return [[cell(c) for c in r] for r in rows if any(c.strip() for c in r)]

    def cell(value: str) -> str:
        value = " ".join(value.split())
        while len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].strip()
        return value

    rows = read(text)
    if rows and any(len(r) > len(rows[0]) for r in rows[1:]):
        rows = read(re.sub(r'"{3,}', '"', text))
    if not rows:
        raise ListFormatError("empty file")
    return rows[0], rows[1:]


def _cz_dates(value: str) -> list[date]:
    out = []
    for d, m, y in _CZ_DATE.findall(value or ""):
        try:
            out.append(date(int(y), int(m), int(d)))
        except ValueError:
            raise ListFormatError(f"unreadable date {value[:30]!r}") from None
    return out


def _cz_birth_dates(value: str) -> list[str]:
    """``d. m. yyyy`` / ``d.m.yyyy`` (several in one cell), or a year alone."""
    full = [d.isoformat() for d in _cz_dates(value)]
    if full:
        return list(dict.fromkeys(full))
    return list(dict.fromkeys(_CZ_YEAR.findall(value or "")))


def _cz_names(surnames: str, given: str) -> list[str]:
    """Name variants are separated by "/": each given name with each surname (a person), or each designation."""
    lasts = [p.strip() for p in surnames.split("/") if p.strip()]
    firsts = [p.strip() for p in given.split("/") if p.strip()]
    if not firsts:
        return lasts
    return [f"{f} {la}" for la in lasts for f in firsts][:CZ_MAX_VARIANT_NAMES]


def parse_cz(data: bytes) -> ParsedList:
    """The Czech national sanctions list as the Ministry of Foreign Affairs publishes it on its open-data page: a
    UTF-8 CSV, comma-separated, Czech column titles (matched by title, not position; the older layout's titles are
    known too), one row per version of an entry. Only rows in the state ``platný`` are sanctions in force
    (``změněn`` is a superseded version, ``zrušen`` a cancelled entry; without a state column every row counts).
    An entry without a given name is a legal person or entity. The file states no publication time: the latest
    date of entry or change of any row (midnight in Prague) stands for it. The file has no identifier per entry:
    the reference is ``CZ-`` and a hash of the first name variant and the birth dates."""
    header, rows = _cz_rows(data)
    index: dict[str, int] = {}
    titles = [_title(h) for h in header]
    for key, known_titles in CZ_COLUMNS.items():
        for name in known_titles:
            if _title(name) in titles:
                index[key] = titles.index(_title(name))
                break
    missing = [CZ_COLUMNS[k][0] for k in ("name", "given", "birth") if k not in index]
    if missing:
        raise ListFormatError(f"not the national sanctions list: no column {missing[0]!r}")

    def get(row: list[str], key: str) -> str:
        i = index.get(key)
        return row[i] if i is not None and i < len(row) else ""

    entries: list[ListEntry] = []
    changed: list[date] = []
    for line, row in enumerate(rows, start=2):
        if len(row) > len(header):
            raise ListFormatError(f"line {line}: {len(row)} cells under {len(header)} columns (quoting)")
        changed += _cz_dates(get(row, "entered"))
        status = get(row, "status").casefold()
        if "status" in index and status not in (CZ_VALID, CZ_AMENDED, CZ_CANCELLED):
            raise ListFormatError(f"line {line}: unknown state of the entry {status[:20]!r}")
        if status in (CZ_AMENDED, CZ_CANCELLED):
            continue
        surname, given = get(row, "name"), get(row, "given")
        if not surname:
            raise ListFormatError(f"line {line}: an entry without a name")
        names = _cz_names(surname, given)
        births = _cz_birth_dates(get(row, "birth"))
        digest = hashlib.sha256(json.dumps([normalised_name(names[0]), births]).encode()).hexdigest()[:16]
        entries.append(
            ListEntry(
                reference=f"CZ-{digest}",
                subject_type=PERSON if given else ENTITY,
                names=names,
                birth_dates=births,
                programme="vnitrostátní sankční seznam (1/2023 Sb.)",
                citizenships=[c.strip() for c in get(row, "nationality").split(",") if c.strip()],
                details={
                    "act": get(row, "act")[:200],
                    "entered": get(row, "entered")[:40],
                    "measures": get(row, "measures")[:300],
                    "conduct": get(row, "conduct")[:500],
                    "status": status or CZ_VALID,
                    "remark": get(row, "status_note")[:300],
                },
            )
        )
    published = datetime.combine(max(changed), time(0), tzinfo=PRAGUE) if changed else None
    return ParsedList(source="cz", published_at=published, entries=_merged(entries))


# The operator's PEP list (CSV) ------------------------------------------------------------------------------------

PEP_COLUMNS = ("reference", "name", "aliases", "birth_date", "position", "country")


def parse_pep_csv(data: bytes) -> ParsedList:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ListFormatError("the PEP list must be UTF-8") from None
    header = text.split("\n", 1)[0]
    delimiter = ";" if header.count(";") > header.count(",") else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    missing = [c for c in ("reference", "name") if c not in columns]
    if missing:
        raise ListFormatError(f"the PEP list's header lacks {', '.join(missing)} (columns: {', '.join(PEP_COLUMNS)})")
    reader.fieldnames = columns
    entries: list[ListEntry] = []
    try:
        for line, row in enumerate(reader, start=2):
            reference, name = (row.get("reference") or "").strip(), (row.get("name") or "").strip()
            if not reference and not name:
                continue
            if not reference or not name:
                raise ListFormatError(f"line {line}: reference and name are required")
            births = [d.strip() for d in (row.get("birth_date") or "").split("|") if d.strip()]
            bad = [d for d in births if not _date_grammar(d)]
            if bad:
                raise ListFormatError(f"line {line}: unreadable birth date {bad[0][:20]!r}")
            aliases = [a.strip() for a in (row.get("aliases") or "").split("|") if a.strip()]
            country = (row.get("country") or "").strip()
            entries.append(
                ListEntry(
                    reference=reference[:100],
                    subject_type=PERSON,
                    names=[name, *aliases],
                    birth_dates=list(dict.fromkeys(births)),
                    citizenships=[country] if country else [],
                    details={"position": (row.get("position") or "").strip()[:300]},
                )
            )
    except csv.Error as exc:
        raise ListFormatError(f"unreadable CSV: {exc}") from None
    return ParsedList(source="pep", published_at=None, entries=_merged(entries))


def _date_grammar(value: str) -> bool:
    """``YYYY-MM-DD``, ``YYYY-MM``, ``YYYY`` or ``YYYY/YYYY``."""
    if "/" in value:
        first, _, last = value.partition("/")
        return _year(first) is not None and _year(last) is not None and int(first) <= int(last)
    if len(value) == 4:
        return _year(value) is not None
    if len(value) == 7:
        return _full_date(value + "-01") != ""
    return len(value) == 10 and _full_date(value) == value


def _merged(entries: list[ListEntry]) -> list[ListEntry]:
    by_reference: dict[str, ListEntry] = {}
    for e in entries:
        if e.reference in by_reference:
            by_reference[e.reference].merge(e)
        else:
            by_reference[e.reference] = e
    return list(by_reference.values())


PARSERS: dict[str, Callable[[bytes], ParsedList]] = {
    "eu": parse_eu,
    "un": parse_un,
    "cz": parse_cz,
    "pep": parse_pep_csv,
}
LIST_KIND = {"eu": "sanctions", "un": "sanctions", "cz": "sanctions", "pep": "pep"}
