"""The client risk rating (AML Act 253/2008 Sb. §9, §21a): documented factors, each worth points, summed into a
score; the score's level names the due diligence it requires (docs/aml.md "Client risk rating"). Pure: the facts
are gathered by ``aml.services.risk`` and passed in as :class:`RiskFacts`; nothing here reads the database.

Factors (points; a factor marked *high* makes the rating high whatever the sum):

| code | fact | points |
| --- | --- | --- |
| ``pep`` | politically exposed (declared, the bank's claim, or a list match confirmed) | 40, *high* |
| ``sanctions_open`` | an open or confirmed sanctions / PEP list match | 50, *high* |
| ``sanctions_cleared`` | list matches cleared as false positives (each, at most 2) | 5 |
| ``suspicious`` | suspicious-transaction rule cases open or confirmed (each, at most 3) | 15 |
| ``funds_missing`` | a source-of-funds declaration required and not given, or rejected | 20 |
| ``funds_declared`` | the declared source is ``other`` (described) | 5 |
| ``deposits_30d`` | confirmed deposits in 30 days over ``AML_RISK_DEPOSITS_MEDIUM`` / ``_HIGH`` | 10 / 25 |
| ``deposits_count_30d`` | more than ``AML_RISK_DEPOSIT_COUNT_30D`` confirmed deposits in 30 days | 10 |
| ``identification`` | not AML-identified / identified online (document provider) / by a bank or a branch | 20 / 5 / 0 |
| ``country_high_risk`` | citizenship or permanent residence in ``AML_RISK_HIGH_RISK_COUNTRIES`` | 40, *high* |
| ``country_foreign`` | citizenship or permanent residence outside the Czech Republic | 5 |

Levels: ``low`` below ``AML_RISK_MEDIUM_SCORE`` (15), ``medium`` below ``AML_RISK_HIGH_SCORE`` (40), ``high`` from
there (or a *high* factor). Due diligence: ``standard`` for low and medium (§9), ``enhanced`` for high (§9a: the
compliance queue, the source of funds, senior approval). Next review: after ``AML_RISK_REVIEW_DAYS`` of the level
(low 1,095 days, medium 365, high 90)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LOW, MEDIUM, HIGH = "low", "medium", "high"
STANDARD, ENHANCED = "standard", "enhanced"


@dataclass(frozen=True)
class RiskFacts:
    pep: bool = False
    sanctions_open: int = 0
    sanctions_cleared: int = 0
    suspicious: int = 0
    funds_missing: bool = False
    funds_other: bool = False
    deposits_30d: int = 0  # haléře
    deposit_count_30d: int = 0
    identification: str = ""  # "" (not identified) | online_provider | bankid | branch | online_register
    countries: tuple[str, ...] = ()  # citizenship and permanent residence, alpha-2


@dataclass(frozen=True)
class RiskConfig:
    medium_score: int = 15
    high_score: int = 40
    deposits_medium: int = 10_000_000  # 100,000.00 CZK
    deposits_high: int = 50_000_000  # 500,000.00 CZK
    deposit_count_30d: int = 30
    high_risk_countries: frozenset[str] = frozenset()
    review_days: dict[str, int] = field(default_factory=lambda: {LOW: 1095, MEDIUM: 365, HIGH: 90})


@dataclass(frozen=True)
class Factor:
    code: str
    points: int
    evidence: Any = None
    forces_high: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "points": self.points, "evidence": self.evidence, "forces_high": self.forces_high}


@dataclass(frozen=True)
class Rating:
    score: int
    level: str
    due_diligence: str
    factors: tuple[Factor, ...]
    review_days: int


def rate(facts: RiskFacts, config: RiskConfig) -> Rating:
    """The rating of these facts (see the module's table)."""
    f: list[Factor] = []
    if facts.pep:
        f.append(Factor("pep", 40, True, forces_high=True))
    if facts.sanctions_open:
        f.append(Factor("sanctions_open", 50, facts.sanctions_open, forces_high=True))
    if facts.sanctions_cleared:
        f.append(Factor("sanctions_cleared", 5 * min(2, facts.sanctions_cleared), facts.sanctions_cleared))
    if facts.suspicious:
        f.append(Factor("suspicious", 15 * min(3, facts.suspicious), facts.suspicious))
    if facts.funds_missing:
        f.append(Factor("funds_missing", 20, True))
    elif facts.funds_other:
        f.append(Factor("funds_declared", 5, "other"))
    if facts.deposits_30d > config.deposits_high:
        f.append(Factor("deposits_30d", 25, facts.deposits_30d))
    elif facts.deposits_30d > config.deposits_medium:
        f.append(Factor("deposits_30d", 10, facts.deposits_30d))
    if facts.deposit_count_30d > config.deposit_count_30d:
        f.append(Factor("deposits_count_30d", 10, facts.deposit_count_30d))
    ident_points = {"": 20, "online_provider": 5, "online_register": 20}.get(facts.identification, 0)
    if ident_points:
        f.append(Factor("identification", ident_points, facts.identification or "none"))
    countries = sorted({c.upper() for c in facts.countries if c})
    risky = [c for c in countries if c in config.high_risk_countries]
    if risky:
        f.append(Factor("country_high_risk", 40, risky, forces_high=True))
    elif any(c != "CZ" for c in countries):
        f.append(Factor("country_foreign", 5, [c for c in countries if c != "CZ"]))
    score = sum(x.points for x in f)
    if score >= config.high_score or any(x.forces_high for x in f):
        level = HIGH
    elif score >= config.medium_score:
        level = MEDIUM
    else:
        level = LOW
    return Rating(
        score=score,
        level=level,
        due_diligence=ENHANCED if level == HIGH else STANDARD,
        factors=tuple(f),
        review_days=int(config.review_days[level]),
    )
