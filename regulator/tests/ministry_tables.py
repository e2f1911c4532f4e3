"""The data-file definitions rebuilt from the Ministry's own tables (../shared/spec/regulator-data), independently of
regulator/schema.py, so a package can be validated against the Ministry's definitions themselves."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from regulator import schema

_TYPES = {
    "Identifier": schema.IDENTIFIER,
    "IdentifierExtended": schema.IDENTIFIER_EXT,
    "ReferenceLink": schema.REFERENCE,
    "ReferenceLinkExtended": schema.REFERENCE_EXT,
    "DateAndTime": schema.DATETIME,
    "Date": schema.DATE,
    "DecimalNumber": schema.DECIMAL,
    "IntegerNumber": schema.INTEGER,
    "Text": schema.TEXT,
    "codebook": schema.CODE,
}
_LENGTHS = {"Identifier", "IdentifierExtended", "ReferenceLink", "ReferenceLinkExtended", "Text", "codebook"}


def _rows(folder: Path, name: str) -> list[dict[str, str]]:
    with open(folder / name, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _condition(text: str) -> tuple:
    if m := re.match(r"(\w+)\.IsEmpty\(\)", text):
        return ("empty", m.group(1))
    # "TypeSM.In('a', 'b', 'c' or 'd')": the Ministry's table names the self-limit kind item TypeSM (its TypSO)
    values = tuple(re.findall(r"[‘'](\w+)[’']", text))
    return ("in", "TypSO", values)


def ministry_files(folder: Path, game_type: str = "T") -> tuple[dict[str, schema.DataFile], dict[str, tuple[str, ...]]]:
    names = [
        r["FileName"] for r in _rows(folder, "model_game_file.csv") if r["Model"] == "V" and r["GameType"] == game_type
    ]
    items: dict[str, list[dict[str, str]]] = {}
    for row in _rows(folder, "fields_structure.csv"):
        if row["Model"] == "V" and row["FileName"] in names:
            items.setdefault(row["FileName"], []).append(row)
    files = {}
    for name in names:
        out = []
        for r in sorted(items[name], key=lambda r: int(r["ColumnId"])):
            lengths = r["FieldType"] in _LENGTHS
            out.append(
                schema.Item(
                    r["FieldNameCz"],
                    _TYPES[r["FieldType"]],
                    r["DomainType"].removeprefix("D_"),
                    r["Nullable"] == "N",
                    int(r["MinLength"]) if lengths and r["MinLength"].strip() else None,
                    int(r["MaxLength"]) if lengths and r["MaxLength"].strip() else None,
                    r["Context"],
                    _condition(r["Condition"]) if r["Presence"] == "mandatoryif" else (),
                )
            )
        files[name] = schema.DataFile(name, tuple(out))
    codes: dict[str, list[str]] = {}
    for row in _rows(folder, "codebook.csv"):
        codes.setdefault(row["FieldName"], []).append(row["Value"])
    return files, {k: tuple(v) for k, v in codes.items()}
