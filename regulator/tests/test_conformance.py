"""The project's definitions of the game-type-T data files against the Ministry's own schema tables and empty package
(read from ../shared/spec/regulator-data next to the repository; never copied into it). Skipped, with the reason,
where that folder is absent."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from django.conf import settings

from regulator import schema

DATA = Path(settings.BASE_DIR).parent / "shared" / "spec" / "regulator-data"

pytestmark = pytest.mark.skipif(
    not (DATA / "fields_structure.csv").is_file(), reason=f"the Ministry's schema tables are not at {DATA}"
)

_TYPES = {
    schema.IDENTIFIER: "Identifier",
    schema.IDENTIFIER_EXT: "IdentifierExtended",
    schema.REFERENCE: "ReferenceLink",
    schema.REFERENCE_EXT: "ReferenceLinkExtended",
    schema.DATETIME: "DateAndTime",
    schema.DATE: "Date",
    schema.DECIMAL: "DecimalNumber",
    schema.INTEGER: "IntegerNumber",
    schema.TEXT: "Text",
    schema.CODE: "codebook",
}
_LENGTHS_MEAN_SOMETHING = {
    "Identifier",
    "IdentifierExtended",
    "ReferenceLink",
    "ReferenceLinkExtended",
    "Text",
    "codebook",
}


def _rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _num(value: str) -> int | None:
    return int(value) if value.strip() else None


def _ministry_items() -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    for row in _rows("fields_structure.csv"):
        if row["Model"] == "V":
            out.setdefault(row["FileName"], []).append(row)
    for items in out.values():
        items.sort(key=lambda r: int(r["ColumnId"]))
    return out


def test_the_package_of_game_type_t_has_exactly_the_ministrys_files():
    ministry = {r["FileName"] for r in _rows("model_game_file.csv") if r["Model"] == "V" and r["GameType"] == "T"}
    assert set(schema.FILE_NAMES) == ministry
    assert len(schema.FILE_NAMES) == 16


@pytest.mark.parametrize("data_file", schema.FILES_T, ids=lambda f: f.name)
def test_every_item_has_the_ministrys_name_order_type_domain_lengths_presence_and_context(data_file):
    ministry = _ministry_items()[data_file.name]
    assert [r["FieldNameCz"] for r in ministry] == data_file.header
    for item, row in zip(data_file.items, ministry, strict=True):
        where = f"{data_file.name}:{item.name}"
        assert _TYPES[item.type] == row["FieldType"], where
        assert f"D_{item.domain}" == row["DomainType"], where
        assert item.mandatory == (row["Nullable"] == "N"), where
        assert bool(item.required_if) == (row["Presence"] == "mandatoryif"), where
        assert item.context == row["Context"], where
        if row["FieldType"] in _LENGTHS_MEAN_SOMETHING:
            assert (item.min_len or None) == _num(row["MinLength"]), where
            assert item.max_len == _num(row["MaxLength"]), where


@pytest.mark.parametrize("data_file", schema.FILES_T, ids=lambda f: f.name)
def test_the_header_lines_equal_the_ministrys_empty_package(data_file):
    raw = (DATA / "empty-package-V-T" / data_file.name).read_bytes()
    lines = raw.split(b"\r\n")
    assert lines[1].decode() == ";".join(data_file.header)
    assert lines[0].decode().split(";")[1:] == [data_file.name, lines[0].decode().split(";")[2], "1.0"]


def test_the_code_lists_used_by_game_type_t_equal_the_ministrys():
    ministry: dict[str, set[str]] = {}
    for row in _rows("codebook.csv"):
        ministry.setdefault(row["FieldName"], set()).add(row["Value"])
    for name, values in schema.CODE_LISTS.items():
        assert set(values) == ministry[name], name
    used = {i.codes for f in schema.FILES_T for i in f.items if i.type == schema.CODE and i.domain == schema.D_KOD}
    assert used <= set(schema.CODE_LISTS)
