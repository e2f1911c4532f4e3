"""The operator's AML duties (GP §4(4)b, §12(1), §2, §10(3); docs/aml.md).

* :class:`AmlProfile` - one per player: when the player was last screened and when the next screening is due
  (the periodic job claims these rows).
* :class:`IdentificationCheck` (+ :class:`IdentificationImage`, :class:`IdentificationEvent`) - online AML
  identification through an identification provider: the document's particulars, its images and a selfie; the
  provider answers by a signed callback (approved / doubtful / rejected); doubtful checks wait for staff.
* :class:`PepDeclaration` - the player's declaration whether they are a politically exposed person;
  :class:`PepClaim` - what another identification source (Bank iD) says about it.
* :class:`ScreeningListVersion` (+ :class:`ScreeningListEntry`) - one imported file of a sanctions list (EU, UN,
  Czech national) or of the operator's PEP list, its entries stored normalised for matching.
* :class:`ScreeningRun` - one screening of the player against the PEP / sanctions list.
* :class:`ComplianceCase` (+ :class:`CaseHold`) - a PEP declaration, a screening hit or a suspicious-transaction
  rule hit waiting for (or decided by) compliance staff.
* :class:`SourceOfFundsRequirement` / :class:`SourceOfFundsDeclaration` - the declaration the AML duties ask for
  once deposits reach the threshold.

Rows change only through ``aml.services`` (audited). Amounts are integer haléře (CZK).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class AmlProfile(models.Model):
    """The player's AML state row: screening schedule (claimed by the periodic job)."""

    player = models.OneToOneField("accounts.Player", on_delete=models.PROTECT, related_name="aml_profile")
    created_at = models.DateTimeField()
    last_screened_at = models.DateTimeField(null=True, blank=True)
    last_screening_result = models.CharField(max_length=12, blank=True, default="")
    list_version = models.CharField(max_length=64, blank=True, default="")
    next_screening_at = models.DateTimeField(db_index=True)
    identification_attempts_from = models.DateTimeField(
        null=True, blank=True, help_text="identification attempts count from here: set when staff allow new attempts"
    )
    claimed_until = models.DateTimeField(
        null=True, blank=True, help_text="a screening job holds the row until then (a lease)"
    )
    # the client risk rating (AML Act §9, §21a; aml/risk.py): the latest assessment, and when it is due again
    risk_level = models.CharField(max_length=8, blank=True, default="")
    risk_score = models.PositiveIntegerField(null=True, blank=True)
    risk_assessed_at = models.DateTimeField(null=True, blank=True)
    risk_next_review_at = models.DateTimeField(null=True, blank=True, db_index=True)

    def __str__(self) -> str:
        return f"AML profile of player {self.player_id}"


# Identification (GP §4(4)b) -------------------------------------------------------------------------------------


class IdentificationCheck(models.Model):
    """One online AML identification attempt (GP §4(4)b): the document's particulars and images, checked by an
    identification provider (document authenticity and likeness of the selfie to the document photo)."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting to be sent to the provider"
        SUBMITTED = "submitted", "sent; the provider is checking"
        APPROVED = "approved", "identified"
        DOUBTFUL = "doubtful", "doubtful: waiting for staff review"
        REJECTED = "rejected", "not identified"
        FAILED = "failed", "the provider could not be reached (retries exhausted)"

    OPEN = (Status.PENDING, Status.SUBMITTED, Status.DOUBTFUL)

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_identification_checks")
    provider = models.CharField(max_length=30)
    reference = models.CharField(max_length=64, unique=True, help_text="our reference, sent to the provider")
    provider_check_id = models.CharField(max_length=80, blank=True, default="")
    document_type = models.CharField(max_length=20)
    document_number = models.CharField(max_length=30)
    document_issuing_state = models.CharField(max_length=2)
    document_issuing_authority = models.CharField(max_length=100)
    document_valid_until = models.DateField()
    id_card_unavailable = models.BooleanField(default=False, help_text="GP §2 point 9: the ID card could not be shown")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    created_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_error = models.CharField(max_length=255, blank=True, default="")
    submitted_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    provider_outcome = models.CharField(max_length=10, blank=True, default="")
    score = models.PositiveSmallIntegerField(null=True, blank=True, help_text="the provider's likeness score, 0-100")
    reasons = models.JSONField(default=list, blank=True)
    extracted = models.JSONField(default=dict, blank=True, help_text="what the provider read off the document")
    verified_claims = models.JSONField(
        default=dict,
        blank=True,
        help_text="Bank iD: the verified claims as the bank sent them (the record of what was verified)",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True, default="")
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        permissions = [
            ("review_identification", "Reviews doubtful online identifications (GP §4(4)b)"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player"],
                condition=Q(status__in=["pending", "submitted", "doubtful"]),
                name="aml_one_open_identification_per_player",
            ),
        ]

    def __str__(self) -> str:
        return f"identification {self.reference} ({self.status})"


class IdentificationImage(models.Model):
    """An image of an identification check: the document's front and back, and the selfie (liveness reference)."""

    class Side(models.TextChoices):
        FRONT = "front", "document front"
        BACK = "back", "document back"
        SELFIE = "selfie", "selfie / liveness reference"

    identification = models.ForeignKey(IdentificationCheck, on_delete=models.PROTECT, related_name="images")
    side = models.CharField(max_length=6, choices=Side.choices)
    file = models.FileField(upload_to="aml/identification/%Y/%m/")
    content_type = models.CharField(max_length=60)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["identification", "side"], name="aml_one_image_per_side")]

    def __str__(self) -> str:
        return f"{self.get_side_display()} of identification {self.identification_id}"


class IdentificationEvent(models.Model):
    """A provider callback, handled exactly once (unique ``(provider, event_id)``)."""

    provider = models.CharField(max_length=30)
    event_id = models.CharField(max_length=120)
    event_type = models.CharField(max_length=40)
    # the check the event answered (None: an unknown reference); its raw body holds the person's data read off the
    # document, so it is anonymised with the check (aml/privacy.py)
    identification = models.ForeignKey(
        IdentificationCheck, on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    raw_body = models.TextField()
    received_at = models.DateTimeField()
    result = models.CharField(max_length=40)
    detail = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["provider", "event_id"], name="aml_identification_event_once")]


class BankIdAuthorization(models.Model):
    """One Bank iD sign-in (OpenID Connect authorization code flow with PKCE): started by the player, finished once
    by the code the bank sends back with ``state``. Holds what the token exchange needs (``nonce``, the PKCE
    ``code_verifier``, the redirect URI; the first two are erased when the sign-in ends) and how it ended; a
    successful one points to the identification it made."""

    class Status(models.TextChoices):
        STARTED = "started", "started: the player is at the bank"
        EXCHANGING = "exchanging", "the code is being exchanged"
        COMPLETED = "completed", "completed: an identification was recorded"
        FAILED = "failed", "failed (error_code says why)"
        SUPERSEDED = "superseded", "superseded by a newer start"
        EXPIRED = "expired", "expired before the bank answered"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_bankid_authorizations")
    state_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the state sent to the bank")
    nonce = models.CharField(max_length=128)
    code_verifier = models.CharField(max_length=128, help_text="PKCE (S256) verifier, sent only to the token endpoint")
    redirect_url = models.CharField(max_length=500)
    issuer = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STARTED, db_index=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    error_code = models.CharField(max_length=60, blank=True, default="")
    error_detail = models.CharField(max_length=255, blank=True, default="")
    subject = models.CharField(max_length=255, blank=True, default="", help_text="the ID token's sub")
    identification = models.OneToOneField(
        IdentificationCheck, on_delete=models.PROTECT, null=True, blank=True, related_name="bankid_authorization"
    )

    class Meta:
        indexes = [models.Index(fields=["player", "status"], name="aml_bankid_player_status")]

    def __str__(self) -> str:
        return f"Bank iD sign-in {self.pk} of player {self.player_id} ({self.status})"


# PEP declaration and screening ------------------------------------------------------------------------------------


class PepDeclaration(models.Model):
    """The player's declaration: politically exposed person or not (append-only; the latest one counts)."""

    class Relation(models.TextChoices):
        NONE = "none", "not a politically exposed person"
        SELF = "self", "I am a politically exposed person"
        FAMILY = "family", "a family member of one"
        ASSOCIATE = "associate", "a close associate of one"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_pep_declarations")
    is_pep = models.BooleanField()
    relation = models.CharField(max_length=10, choices=Relation.choices)
    position = models.CharField(max_length=200, blank=True, default="", help_text="the public function concerned")
    declared_at = models.DateTimeField()
    declared_by = models.CharField(max_length=150)

    class Meta:
        ordering = ["-declared_at", "-id"]


class PepClaim(models.Model):
    """What an identification source other than the player (e.g. Bank iD's verified claims) says: a PEP or not
    (append-only; a "yes" opens a blocking case, ``aml.services.pep_claim_record``)."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_pep_claims")
    source = models.CharField(max_length=40, help_text="who says so, e.g. bankid")
    is_pep = models.BooleanField()
    recorded_at = models.DateTimeField()
    recorded_by = models.CharField(max_length=150)

    class Meta:
        ordering = ["-recorded_at", "-id"]


# Imported screening lists -----------------------------------------------------------------------------------------


class ScreeningListVersion(models.Model):
    """One imported list file (append-only). The newest version of each source that is not withdrawn is the one
    screened against; the same file (source and SHA-256) is imported once."""

    class Source(models.TextChoices):
        EU = "eu", "EU consolidated list of financial sanctions (FSF XML)"
        UN = "un", "UN Security Council consolidated list (XML)"
        CZ = "cz", "Czech national sanctions list"
        PEP = "pep", "operator's list of politically exposed persons (CSV)"

    source = models.CharField(max_length=3, choices=Source.choices)
    published_at = models.DateTimeField(null=True, blank=True, help_text="the publication time the file states")
    sha256 = models.CharField(max_length=64)
    file_name = models.CharField(max_length=200, blank=True, default="")
    size = models.PositiveBigIntegerField()
    entry_count = models.PositiveIntegerField(help_text="persons and entities")
    person_count = models.PositiveIntegerField(help_text="persons (the players are screened against these)")
    name_count = models.PositiveIntegerField(help_text="distinct normalised names of the persons")
    imported_at = models.DateTimeField()
    imported_by = models.CharField(max_length=150)
    # compliance withdrew a wrongly imported version: it is screened against no more and no longer the newest
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.CharField(max_length=150, blank=True, default="")
    withdrawn_reason = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-imported_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["source", "sha256"], name="aml_list_file_once")]
        permissions = [("import_screening_list", "Imports sanctions and PEP list files")]

    def __str__(self) -> str:
        return f"{self.source} list version {self.pk} ({self.entry_count} entries)"


class ScreeningListEntry(models.Model):
    """A person or entity of one list version: every spelling of the names (``names``) and their normalised
    forms (``match_names``, same order, ``aml.matching.normalised_name``), the birth dates (``YYYY-MM-DD``,
    ``YYYY-MM``, ``YYYY``, ``YYYY/YYYY``)."""

    class SubjectType(models.TextChoices):
        PERSON = "person", "natural person"
        ENTITY = "entity", "entity (company, organisation, vessel ...)"

    version = models.ForeignKey(ScreeningListVersion, on_delete=models.PROTECT, related_name="entries")
    source = models.CharField(max_length=3)
    list_kind = models.CharField(max_length=10, help_text="sanctions or pep")
    reference = models.CharField(max_length=100, help_text="the list's own reference (EU.., QDi.., ...)")
    subject_type = models.CharField(max_length=6, choices=SubjectType.choices)
    programme = models.CharField(max_length=200, blank=True, default="")
    name = models.CharField(max_length=300)
    names = models.JSONField(default=list)
    match_names = models.JSONField(default=list)
    birth_dates = models.JSONField(default=list, blank=True)
    citizenships = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of what matching reads (names, birth dates)")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "reference"], name="aml_list_entry_once")]
        indexes = [models.Index(fields=["version", "subject_type"], name="aml_list_entry_version_type")]
        verbose_name_plural = "screening list entries"

    def __str__(self) -> str:
        return f"{self.source}:{self.reference} {self.name}"


class ScreeningRun(models.Model):
    """One screening of the player against the PEP / sanctions list."""

    class Result(models.TextChoices):
        CLEAR = "clear", "no match"
        HIT = "hit", "matched a list entry"
        UNAVAILABLE = "unavailable", "the list could not be searched"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_screening_runs")
    trigger = models.CharField(max_length=20)
    ran_at = models.DateTimeField(db_index=True)
    list_code = models.CharField(max_length=30)
    list_version = models.CharField(max_length=64, blank=True, default="")
    result = models.CharField(max_length=12, choices=Result.choices)
    matches = models.JSONField(default=list, blank=True)
    error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["-ran_at", "-id"]


# Compliance cases -------------------------------------------------------------------------------------------------


class ComplianceCase(models.Model):
    """Something compliance staff must decide: a PEP declaration, a screening hit, a suspicious-transaction rule
    hit. ``blocking`` cases refuse completion of registration, deposits, withdrawals and stakes while open and once
    confirmed (docs/aml.md; the case services keep ``accounts.Player.aml_restriction`` with them, which the stake gate
    reads); ``key`` makes opening idempotent (one case per rule/player/anchor, per list entry, per declaration)."""

    class Kind(models.TextChoices):
        PEP_DECLARED = "pep_declared", "player declared a politically exposed person"
        PEP_CLAIMED = "pep_claimed", "an identification source says the player is a politically exposed person"
        SCREENING_HIT = "screening_hit", "PEP / sanctions list match"
        SUSPICIOUS = "suspicious", "suspicious-transaction rule"
        PEP_CLAIM = "pep_claim", "the player's bank (Bank iD) says politically exposed person"
        RISK_HIGH = "risk_high", "high-risk client: enhanced due diligence (AML Act §9a)"

    class Status(models.TextChoices):
        OPEN = "open", "open: waiting for compliance"
        CLEARED = "cleared", "cleared: no obstacle (false positive / PEP accepted / no suspicion)"
        CONFIRMED = "confirmed", "confirmed (list match / relationship refused / suspicion reported)"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_cases")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    rule = models.CharField(max_length=40, blank=True, default="")
    key = models.CharField(max_length=200, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    blocking = models.BooleanField()
    opened_at = models.DateTimeField()
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    anchor = models.CharField(max_length=160, blank=True, default="", help_text="the event that raised it")
    summary = models.CharField(max_length=300)
    details = models.JSONField(default=dict, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True, default="")
    decision_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        permissions = [
            ("decide_case", "Decides compliance (AML) cases"),
            ("place_hold", "Holds a win of a compliance case's player (GP §10(3))"),
            ("screen_player", "Screens players against the PEP and sanctions lists now"),
        ]
        indexes = [models.Index(fields=["player", "status"], name="aml_case_player_status")]

    def __str__(self) -> str:
        return f"AML case {self.pk} {self.kind}{':' + self.rule if self.rule else ''} ({self.status})"


class CaseHold(models.Model):
    """A win hold (GP §10(3)) placed from a case through the wallet."""

    case = models.ForeignKey(ComplianceCase, on_delete=models.PROTECT, related_name="holds")
    win_reference = models.CharField(max_length=160)
    reason = models.CharField(max_length=12)
    hold_id = models.BigIntegerField(help_text="wallet.WinHold id")
    placed_at = models.DateTimeField()
    placed_by = models.CharField(max_length=150)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["case", "win_reference"], name="aml_case_hold_once")]


# Source of funds ----------------------------------------------------------------------------------------------------


class SourceOfFundsDeclaration(models.Model):
    """The player's declaration of the source of the money deposited (GP §12(1): statements the AML law asks for)."""

    class Source(models.TextChoices):
        EMPLOYMENT = "employment", "salary / employment"
        BUSINESS = "business", "business income"
        SAVINGS = "savings", "savings"
        INHERITANCE = "inheritance", "inheritance or gift"
        SALE = "sale", "sale of property"
        PENSION = "pension", "pension / benefits"
        OTHER = "other", "other (described)"

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "submitted (waiting for review)"
        ACCEPTED = "accepted", "accepted by staff"
        REJECTED = "rejected", "rejected by staff: a new declaration is needed"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_sof_declarations")
    source = models.CharField(max_length=12, choices=Source.choices)
    description = models.TextField(max_length=2000)
    submitted_at = models.DateTimeField()
    deposits_total = models.BigIntegerField(help_text="confirmed deposits in the window when submitted (haléře)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SUBMITTED, db_index=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.CharField(max_length=150, blank=True, default="")
    review_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        permissions = [
            ("review_source_of_funds", "Reviews source-of-funds declarations"),
        ]
        ordering = ["-submitted_at", "-id"]


class SourceOfFundsRequirement(models.Model):
    """Deposits reached the threshold: a declaration is required (deposits refused until one is submitted)."""

    class Status(models.TextChoices):
        OPEN = "open", "open: declaration required"
        FULFILLED = "fulfilled", "a declaration was submitted"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_sof_requirements")
    triggered_at = models.DateTimeField()
    deposits_total = models.BigIntegerField()
    threshold = models.BigIntegerField()
    window_days = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    fulfilled_at = models.DateTimeField(null=True, blank=True)
    declaration = models.ForeignKey(
        SourceOfFundsDeclaration, on_delete=models.PROTECT, null=True, blank=True, related_name="requirements"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(status="open"), name="aml_one_open_sof_requirement_per_player"
            )
        ]


class RiskAssessment(models.Model):
    """One assessment of a client's risk (append-only history; AML Act §9, §21a): the score, its level, the due
    diligence it requires and the factors that made it (aml/risk.py, docs/aml.md "Client risk rating")."""

    class Level(models.TextChoices):
        LOW = "low", "low"
        MEDIUM = "medium", "medium"
        HIGH = "high", "high"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="aml_risk_assessments")
    assessed_at = models.DateTimeField(db_index=True)
    score = models.PositiveIntegerField()
    level = models.CharField(max_length=8, choices=Level.choices)
    due_diligence = models.CharField(max_length=10)  # standard | enhanced
    factors = models.JSONField(default=list)
    trigger = models.CharField(max_length=40)  # periodic | screening | staff | identification ...
    previous_level = models.CharField(max_length=8, blank=True, default="")
    next_review_at = models.DateTimeField()
    assessed_by = models.CharField(max_length=150)

    class Meta:
        ordering = ["-assessed_at", "-id"]
        indexes = [models.Index(fields=["player", "-assessed_at"], name="aml_risk_player_time")]
