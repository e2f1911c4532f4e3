"""Name matching against the imported sanctions and PEP lists (docs/aml.md, "Matching"). Pure Python: no Django.

What a compliance officer can explain, step by step:

1. **Normalised name** (:func:`name_tokens`): the name is transliterated to Latin letters with Unidecode (accents
   dropped: "Nováková" -> "novakova"; Cyrillic, Greek, Arabic ... transliterated: "Иван" -> "ivan"), case-folded,
   apostrophes removed ("O'Neil" -> "oneil") and split into words at anything but a letter or digit
   ("Al-Rashid" -> "al", "rashid"). Word order does not count: the words are compared sorted.
2. **Candidates** (:class:`NameIndex`, blocking): only list names that share at least one word with the person's
   name, either spelled the same or with the same consonant code (:func:`consonant_code`, a Soundex-like code of
   the whole word: "muhammad" and "mohammed" are both ``53``, "novak" and "nowak" both ``512``) are scored. So the
   10,000 x 5,000 comparisons of a re-screening shrink to the few dozen names per person that could score at all.
3. **Score** (:func:`name_score`, 0-100, rapidfuzz): the higher of ``token_sort_ratio`` (the two names, words
   sorted, compared letter by letter) and, when both names have at least two words, ``token_set_ratio`` (all the
   words of the shorter name found in the longer one count fully: a player's second given name, a list name
   without the patronymic). A list name scoring at least the threshold (``AML_SCREENING_MATCH_THRESHOLD``) is a
   name match; a one-word list name needs the whole-name score.
4. **Birth date as a discriminator** (:func:`birth_date_matches`): an entry with birth dates matches only when one
   of them agrees with the person's (a full date exactly; a month with its year; a year-only date the year; a
   range or an approximate date, stored as ``YYYY/YYYY``, any year within it). An entry without a birth date
   cannot exclude anyone: the name decides.

Each hit keeps its score, the list name (alias) that scored it and the list entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from rapidfuzz import fuzz, process
from unidecode import unidecode

_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHES = re.compile(r"['`\u2018\u2019\u02bc\u02bb]")
# Soundex's consonant classes (b f p v | c g j k q s x z | d t | l | m n | r), and w with v (the Slavic and German
# "w" is a "v": Nowak / Novak, Wladimir / Vladimir); vowels, h and y carry no code.
_CLASSES = {
    **dict.fromkeys("bfpvw", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}


def name_tokens(text: str) -> tuple[str, ...]:
    """The words of a name for matching: transliterated (Unidecode), case-folded, apostrophes removed."""
    latin = unidecode(text or "").casefold()
    return tuple(_WORD.findall(_APOSTROPHES.sub("", latin)))


def normalised_name(text: str) -> str:
    """The stored form of a name: its words sorted, one space apart ("Nováková Jana" -> "jana novakova")."""
    return " ".join(sorted(name_tokens(text)))


def consonant_code(token: str) -> str:
    """A Soundex-like code of the whole word (the first letter coded too, repeated codes collapsed): spelling
    variants of one name share it ("khaled" / "chaled" -> ``243``). A word without consonants is its own code."""
    out: list[str] = []
    for ch in token:
        code = _CLASSES.get(ch, "" if ch.isalpha() else ch)
        if code and (not out or out[-1] != code):
            out.append(code)
    return "".join(out) or token


def name_score(a: str, b: str) -> float:
    """How alike two normalised names are, 0-100 (see the module docstring, step 3)."""
    score = fuzz.token_sort_ratio(a, b)
    if a.count(" ") >= 1 and b.count(" ") >= 1:
        score = max(score, fuzz.token_set_ratio(a, b))
    return float(score)


def birth_date_matches(entry: str, dob: date) -> bool:
    """An entry's birth date agrees with ``dob``: ``YYYY-MM-DD`` exactly, ``YYYY-MM`` the month, ``YYYY`` the year,
    ``YYYY/YYYY`` any year of the range (both ends included). An unreadable entry date agrees (it cannot exclude)."""
    entry = (entry or "").strip()
    try:
        if "/" in entry:
            first, last = (int(x) for x in entry.split("/", 1))
            return first <= dob.year <= last
        if len(entry) == 4:
            return int(entry) == dob.year
        if len(entry) == 7:
            return entry == dob.isoformat()[:7]
        if len(entry) == 10:
            return entry == dob.isoformat()
    except ValueError:
        pass
    return True


def birth_dates_match(entries: Sequence[str], dob: date) -> bool:
    """No birth date on the entry: it cannot exclude; otherwise one of its dates must agree."""
    return not entries or any(birth_date_matches(e, dob) for e in entries)


@dataclass(frozen=True)
class IndexedEntry:
    """A person on an imported list as the index holds it."""

    pk: int
    source: str
    reference: str
    list_kind: str  # "sanctions" | "pep"
    programme: str
    name: str
    names: tuple[str, ...]  # the list's own spellings (the primary name first)
    match_names: tuple[str, ...]  # normalised_name of each, same order
    birth_dates: tuple[str, ...]
    fingerprint: str
    version_id: int
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Hit:
    entry: IndexedEntry
    score: float  # rounded to one decimal
    matched_name: str  # the list's spelling that scored


class NameIndex:
    """The persons of the imported lists, indexed by word and by consonant code of each word of each name."""

    def __init__(self, entries: Iterable[IndexedEntry]) -> None:
        self.entries: list[IndexedEntry] = []
        self.names: list[tuple[int, int, str]] = []  # (entry index, name index within the entry, normalised)
        self.words: list[frozenset[str]] = []  # the words of each name
        self.postings: dict[str, list[int]] = {}
        for entry in entries:
            e = len(self.entries)
            self.entries.append(entry)
            for i, normalised in enumerate(entry.match_names):
                if not normalised:
                    continue
                n = len(self.names)
                self.names.append((e, i, normalised))
                words = normalised.split()
                self.words.append(frozenset(words))
                for key in _keys(words):
                    self.postings.setdefault(key, []).append(n)

    def __len__(self) -> int:
        return len(self.entries)

    def candidates(self, tokens: Sequence[str]) -> set[int]:
        found: set[int] = set()
        for key in _keys(tokens):
            found.update(self.postings.get(key, ()))
        return found

    def search(self, full_name: str, dob: date, threshold: float) -> list[Hit]:
        """The entries one of whose names scores at least ``threshold`` against ``full_name`` and whose birth
        dates agree with ``dob``; the best-scoring name of each entry, best first. (The same score as
        :func:`name_score`, computed in bulk: ``token_sort_ratio`` is ``ratio`` of the sorted names, and
        ``token_set_ratio`` can only add to it for a name sharing a word with the person's.)"""
        tokens = name_tokens(full_name)
        if not tokens:
            return []
        query = " ".join(sorted(tokens))
        words = frozenset(tokens)
        several = len(tokens) >= 2
        cands = list(self.candidates(tokens))
        scores: dict[int, float] = {}
        for _, score, k in process.extract(
            query,
            [self.names[n][2] for n in cands],
            scorer=fuzz.ratio,
            processor=None,
            score_cutoff=threshold,
            limit=None,
        ):
            scores[cands[k]] = float(score)
        if several:
            for n in cands:
                if len(self.words[n]) >= 2 and not words.isdisjoint(self.words[n]):
                    score = fuzz.token_set_ratio(query, self.names[n][2], processor=None, score_cutoff=threshold)
                    if score > scores.get(n, 0.0):
                        scores[n] = float(score)
        best: dict[int, tuple[float, int]] = {}
        for n, score in scores.items():
            e, i, _ = self.names[n]
            if score > best.get(e, (-1.0, 0))[0]:
                best[e] = (score, i)
        hits = []
        for e, (score, i) in best.items():
            entry = self.entries[e]
            if birth_dates_match(entry.birth_dates, dob):
                hits.append(Hit(entry=entry, score=round(score, 1), matched_name=entry.names[i]))
        hits.sort(key=lambda h: (-h.score, h.entry.source, h.entry.reference))
        return hits


def _keys(tokens: Iterable[str]) -> set[str]:
    """The blocking keys of a name's words: the consonant code of each word with at least two consonant classes,
    the word itself otherwise (a one-consonant code such as "eva" ``1`` would put a large share of all names
    among the candidates)."""
    keys: set[str] = set()
    for t in tokens:
        code = consonant_code(t)
        keys.add("c:" + code if len(code) >= 2 else "w:" + t)
    return keys
