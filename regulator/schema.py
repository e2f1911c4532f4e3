"""The data files of a remote-access package (decree 10/2019 Sb., annex "Automatizovaný výstup") for game type ``T``
(technical game), item by item, written from the engineer's specification (docs/regulator.md; the specification's
section 3.4-3.6). Each item has its machine name, type, domain, length limits, code list, whether it must be filled
(or the condition under which it must be) and the Ministry's context rule.

The Ministry's own schema tables are not part of the project: ``regulator/tests/test_conformance.py`` compares these
definitions with them when they are at hand (``../shared/spec/regulator-data``)."""

from __future__ import annotations

from dataclasses import dataclass

# Item types (the Ministry's validator types, in the project's words).
IDENTIFIER = "identifier"  # operator id prefix + operator-chosen part; letters, digits, _ and -
IDENTIFIER_EXT = "identifier_ext"  # as IDENTIFIER, any characters after the first hyphen (gaming positions)
REFERENCE = "reference"  # the identifier of a record of another (or the same) file
REFERENCE_EXT = "reference_ext"
DATETIME = "datetime"  # YYYY-MM-DDThh:mm:ss.s+hh:mm (exactly one fractional digit)
DATE = "date"
DECIMAL = "decimal"  # decimal comma
INTEGER = "integer"
TEXT = "text"
CODE = "code"  # a value of the code list of the item's name

# Domains (how a decimal, integer or code is formatted).
D_IDENTIFIER, D_REFERENCE, D_DATETIME, D_DATE = "IDENTIFIER", "REFERENCE", "DATETIME", "DATE"
D_MONEY, D_GPS, D_COURSE, D_INTEGER, D_AMOUNT = "MONEY", "GPS", "COURSE", "INTEGER", "AMOUNT"
D_BINARY, D_TEXT, D_KOD = "BINARY", "TEXT", "KOD"

# Context rules the Ministry checks.
STARTS_WITH_OPERATOR = "startsWithOperatorId"
EQUALS_OPERATOR = "equalsOperatorId"
EQUALS_GAME_TYPE = "equalsGameType"
WITHIN_PERIOD = "withinPackageTimespan"


@dataclass(frozen=True)
class Item:
    name: str
    type: str
    domain: str
    mandatory: bool = True
    min_len: int | None = None
    max_len: int | None = None
    context: str = ""
    # mandatory only when another item of the record is empty (``("empty", "X")``) or holds one of some values
    # (``("in", "X", ("a", "b"))``)
    required_if: tuple = ()
    codelist: str = ""  # the code list's name for CODE items (the item's own name unless given)

    @property
    def codes(self) -> str:
        return self.codelist or self.name


@dataclass(frozen=True)
class DataFile:
    name: str
    items: tuple[Item, ...]

    @property
    def header(self) -> list[str]:
        return [i.name for i in self.items]


def _id(name: str, max_len: int = 50, ext: bool = False) -> Item:
    return Item(name, IDENTIFIER_EXT if ext else IDENTIFIER, D_IDENTIFIER, True, 8, max_len, STARTS_WITH_OPERATOR)


def _ref(name: str, mandatory: bool = True, ext: bool = False) -> Item:
    return Item(name, REFERENCE_EXT if ext else REFERENCE, D_REFERENCE, mandatory, 8, 50, STARTS_WITH_OPERATOR)


def _operator_ref() -> Item:
    return Item("IDProvozovatel", REFERENCE, D_REFERENCE, True, 8, 20, EQUALS_OPERATOR)


def _time(name: str, mandatory: bool = True) -> Item:
    return Item(name, DATETIME, D_DATETIME, mandatory, context=WITHIN_PERIOD)


def _money(name: str, mandatory: bool = True, required_if: tuple = ()) -> Item:
    return Item(name, DECIMAL, D_MONEY, mandatory, required_if=required_if)


def _code(
    name: str,
    max_len: int | None = 1,
    *,
    min_len: int | None = None,
    mandatory: bool = True,
    context: str = "",
    required_if: tuple = (),
    domain: str = D_KOD,
) -> Item:
    return Item(name, CODE, domain, mandatory, min_len, max_len, context, required_if)


def _binary(name: str, mandatory: bool = True) -> Item:
    return Item(name, CODE, D_BINARY, mandatory)


def _text(name: str, max_len: int, min_len: int = 0, mandatory: bool = True) -> Item:
    return Item(name, TEXT, D_TEXT, mandatory, min_len, max_len)


def _int(name: str, domain: str = D_INTEGER, mandatory: bool = True, required_if: tuple = ()) -> Item:
    return Item(name, INTEGER, domain, mandatory, required_if=required_if)


_MONEY_KINDS = ("in", "TypSO", ("a", "b", "c", "d"))

FILES_T: tuple[DataFile, ...] = (
    DataFile(
        "provozovatel.csv",
        (
            Item("IDProvozovatel", IDENTIFIER, D_IDENTIFIER, True, 8, 20, EQUALS_OPERATOR),
            _text("ProvozovatelNazev", 250, 1),
        ),
    ),
    DataFile(
        "evidence_her.csv",
        (
            _id("IDHraPopis"),
            _text("HraNazev", 250, 1),
            _code("HraDruh"),
            _code("HraKategorie"),
            _operator_ref(),
            _time("SpusteniCas", mandatory=False),
        ),
    ),
    DataFile("konto.csv", (_id("IDUzivKonto"), _operator_ref(), _time("ZrizeniCas"))),
    DataFile(
        "konto_zmeny.csv",
        (
            _id("IDZaznamUzivKonto"),
            _ref("IDUzivKonto"),
            _code("HraDruh", 1, min_len=1, context=EQUALS_GAME_TYPE),
            _binary("Landbased"),
            _binary("Internet"),
            _code("DocasneTrvale"),
            _time("ZmenaCas"),
        ),
    ),
    DataFile(
        "prihlaseni.csv",
        (
            _id("IDPrihlaseni"),
            _ref("IDUzivKonto"),
            _time("PrihlaseniCas"),
            _time("OdhlaseniCas", mandatory=False),
            _ref("IDHerniPozice", mandatory=False, ext=True),
        ),
    ),
    DataFile(
        "doba_ucasti.csv",
        (
            _id("IDDobaUcasti"),
            _ref("IDUzivKonto"),
            _time("ZacatekUcastiCas"),
            _time("KonecUcastiCas", mandatory=False),
        ),
    ),
    DataFile(
        "ucet.csv",
        (
            _id("IDTransakce"),
            _ref("IDUzivKonto"),
            _money("TransakceVyse"),
            _time("TransakceCas"),
            _int("TransakceZpusob", D_BINARY),
            _text("TransakceZpusobUpresneni", 250, 1),
            _code("MenaKod", 3),
        ),
    ),
    DataFile(
        "hra_toky.csv",
        (
            _id("IDHraToky"),
            _code("HraDruh", context=EQUALS_GAME_TYPE),
            _code("HraKategorie"),
            _ref("IDUzivKonto", mandatory=False),
            _money("SazkaVysePuvodni", mandatory=False),
            _time("SazkaPrijetiCas"),
            _money("DoprovodnePlneniVysePuvodni", mandatory=False),
            _time("DoprovodnePlneniCas", mandatory=False),
            _text("SazkaHerniKombinace", 250, 0, mandatory=False),
            _money("VyhraVyseNarok", mandatory=False),
            _money("VyhraVysePuvodni", mandatory=False),
            _time("VyhraVyplaceniCas", mandatory=False),
            _code("MenaKod", 3),
            _ref("IDMisto", mandatory=False),
            _ref("IDHerniPozice", mandatory=False, ext=True),
        ),
    ),
    DataFile(
        "vazba_hra_sazka.csv",
        (
            _id("IDVazbaHraSazka"),
            _ref("IDHraPopis"),
            _ref("IDJednaHra", mandatory=False),
            _ref("IDHraToky"),
        ),
    ),
    DataFile(
        "hra_toky_oprava.csv",
        (
            _id("IDHraTokyOprava"),
            _ref("IDHraToky"),
            _code("TypTokyOprava"),
            _money("TokyOpravaVyse"),
            _time("TokyOpravaCas"),
            _code("MenaKod", 3),
        ),
    ),
    DataFile(
        "ostatni_plneni.csv",
        (
            _id("IDOstatniPlneni"),
            _operator_ref(),
            _ref("IDUzivKonto", mandatory=False),
            _code("HraDruh", context=EQUALS_GAME_TYPE),
            _money("OstatniPlneniVysePuvodni"),
            _time("OstatniPlneniCas"),
            _code("MenaKod", 3),
            _ref("IDMisto", mandatory=False),
        ),
    ),
    DataFile(
        "ostatni_plneni_oprava.csv",
        (
            _id("IDOstatniPlneniOprava"),
            _ref("IDOstatniPlneni"),
            _code("TypOstatniPlneniOprava"),
            _money("OstatniPlneniOpravaVyse"),
            _time("OstatniPlneniOpravaCas"),
            _code("MenaKod", 3),
        ),
    ),
    DataFile(
        "sebeomezeni.csv",
        (
            _id("IDNastaveniSO"),
            _ref("IDUzivKonto"),
            _code("TypSO", 2),
            _money("HodnotaVyse", mandatory=False, required_if=_MONEY_KINDS),
            _int("HodnotaPocet", D_AMOUNT, mandatory=False, required_if=("in", "TypSO", ("e",))),
            _int("HodnotaCas", D_AMOUNT, mandatory=False, required_if=("in", "TypSO", ("f", "g"))),
            _time("SONastaveniCas"),
            _time("SOUcinnostiCas"),
            _binary("SOOdmitnuti", mandatory=False),
            _code("MenaKod", 3, mandatory=False, required_if=_MONEY_KINDS),
        ),
    ),
    DataFile(
        "sebeomezeni_hra_druh.csv",
        (
            _id("IDSOHraDruh"),
            _ref("IDNastaveniSO"),
            _code("HraDruh", context=EQUALS_GAME_TYPE),
        ),
    ),
    DataFile(
        "misto.csv",
        (
            _id("IDMisto"),
            _operator_ref(),
            Item("GPSX", DECIMAL, D_GPS, False, required_if=("empty", "SidloKodRuian")),
            Item("GPSY", DECIMAL, D_GPS, False, required_if=("empty", "SidloKodRuian")),
            _code("TypMisto", 2, min_len=1),
            _text("Ulice", 250, mandatory=False),
            _int("CP", mandatory=False),
            _text("CO", 10, mandatory=False),
            _text("CastObce", 250, mandatory=False),
            _int("PSC"),
            _text("Obec", 250, 1),
            _int("Obvod", mandatory=False),
            _code("Kraj", 3),
            _int("SidloKodRuian", mandatory=False),
        ),
    ),
    DataFile(
        "herni_pozice.csv",
        (
            _id("IDHerniPozice", ext=True),
            _ref("IDMisto"),
            _operator_ref(),
        ),
    ),
)

FILES: dict[str, DataFile] = {f.name: f for f in FILES_T}
FILE_NAMES: tuple[str, ...] = tuple(f.name for f in FILES_T)
# mena_kurs.csv belongs only in the packages of 25 January, April, July and October at 16:00 (exchange rates of a
# non-CZK currency); an operator that takes only CZK has none to report, so the platform never writes it.

# Code lists (the Ministry's code list, section 3.5 of the specification).
CODE_LISTS: dict[str, tuple[str, ...]] = {
    "HraDruh": ("L", "K", "R", "B", "T", "Z"),
    "HraKategorie": ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "m"),
    "TypTokyOprava": ("A", "B", "C", "D", "E", "F", "G", "J"),
    "TypOstatniPlneniOprava": ("H", "I"),
    "TypSO": ("a", "b", "c", "d", "e", "f", "g", "ap"),
    "SOOdmitnuti": ("0", "1"),
    "DocasneTrvale": ("D", "T"),
    "Internet": ("0", "1"),
    "Landbased": ("0", "1"),
    "TypMisto": ("H", "K", "P", "S", "PS"),
    "Kraj": ("PHA", "STC", "JHC", "PLK", "KVK", "ULK", "LBK", "HKK", "PAK", "VYS", "JHM", "OLK", "MSK", "ZLK"),
    "MenaKod": (
        "AUD",
        "BRL",
        "BGN",
        "CNY",
        "DKK",
        "EUR",
        "PHP",
        "HKD",
        "HRK",
        "INR",
        "IDR",
        "ISK",
        "ILS",
        "JPY",
        "ZAR",
        "CAD",
        "KRW",
        "HUF",
        "MYR",
        "MXN",
        "XDR",
        "NOK",
        "NZD",
        "PLN",
        "RON",
        "RUB",
        "SGD",
        "SEK",
        "CHF",
        "THB",
        "TRY",
        "USD",
        "GBP",
        "CZK",
    ),
}

# The game type and category of the platform's games: technical games (slots), category h.
GAME_TYPE = "T"
GAME_CATEGORY = "h"
FORMAT_VERSION = "1.0"
