"""People: users (credentials), players (one per person), personal data, consents,
login sessions, identity checks, duplicates, and the sandbox tables of the adapters.

Other apps reference ``accounts.Player`` as *the* participant and read it only through
``accounts.selectors``; writes go through ``accounts.services``.
"""

import hashlib

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce


class User(AbstractUser):
    """Credentials of a player or a staff member (staff: is_staff)."""

    must_change_password = models.BooleanField(default=False)  # GP §4(7): first password changed at first login


class Player(models.Model):
    """A participant (Účastník). One per person (GP §5(3)).

    The status moves only through the services in ``accounts.services.lifecycle`` (each
    transition is audited). Deadlines are row fields read by sweepers.
    """

    class Status(models.TextChoices):
        APPLICANT = "applicant", "applicant (data entered, age not yet verified)"
        TEMPORARY = "temporary", "temporary account (GP §5(1))"
        ACTIVE = "active", "player account"
        SUSPENDED = "suspended", "suspended"
        CLOSING = "closing", "closing (settlement pending)"
        CLOSED = "closed", "closed"
        EXPIRED = "expired", "temporary account expired (GP §5(2)a)"
        REJECTED = "rejected", "registration refused (register check failed or not finished)"

    TERMINAL = (Status.CLOSED, Status.EXPIRED, Status.REJECTED)

    class Channel(models.TextChoices):
        ONLINE = "online", "online (self-service)"
        BRANCH = "branch", "branch (staff)"

    class ClosureMethod(models.TextChoices):
        TRANSFER = "transfer", "transfer to the registered payment method"
        BRANCH_CASH = "branch_cash", "cash at a branch (max 5,000 CZK / 24 h)"

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="player")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.APPLICANT, db_index=True)
    created_at = models.DateTimeField()
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.ONLINE)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    status_reason = models.CharField(max_length=200, blank=True, default="")
    suspended_from = models.CharField(max_length=20, blank=True, default="")  # status to return to

    # Register checks that could not run yet (register unavailable): retried by a sweeper.
    checks_retry_at = models.DateTimeField(null=True, blank=True, db_index=True)
    checks_attempts = models.PositiveIntegerField(default=0)
    identity_verified_at = models.DateTimeField(null=True, blank=True)  # GP §4(4)c
    aml_identified_at = models.DateTimeField(null=True, blank=True)  # GP §4(4)b

    # Temporary account (GP §5(1), §5(2)a).
    temporary_activated_at = models.DateTimeField(null=True, blank=True)
    temporary_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    completed_at = models.DateTimeField(null=True, blank=True)  # GP §4(8)

    # Credentials (GP §4(7)): e-mail link -> first password by SMS -> changed at first login.
    email_link_seq = models.PositiveIntegerField(default=0)
    email_link_used_seq = models.PositiveIntegerField(default=0)
    email_confirmed_at = models.DateTimeField(null=True, blank=True)
    first_password_sent_at = models.DateTimeField(null=True, blank=True)

    # Closure (GP §4(10), §5(15)) and the balance hand-off to the wallet.
    closure_requested_at = models.DateTimeField(null=True, blank=True)
    closure_method = models.CharField(max_length=20, choices=ClosureMethod.choices, blank=True, default="")
    closed_at = models.DateTimeField(null=True, blank=True)
    # "refund" (GP §5(2)e) or "settlement" (GP §5(15)): the wallet process still to be started.
    balance_handoff = models.CharField(max_length=20, blank=True, default="")
    balance_handoff_at = models.DateTimeField(null=True, blank=True)
    balance_handoff_error = models.CharField(max_length=200, blank=True, default="")

    # Flags that refuse betting (GP §3(3), exclusion register).
    barred_insider = models.BooleanField(default=False)
    barred_insider_note = models.CharField(max_length=200, blank=True, default="")
    exclusion_listed = models.BooleanField(default=False)
    exclusion_checked_at = models.DateTimeField(null=True, blank=True)

    # AML (zákon č. 253/2008 Sb.): what the player's blocking compliance cases refuse, kept by ``aml`` in the same
    # transaction as each case's change (``accounts.services.aml_restriction_record``): "review" while one is open,
    # "refused" once one is confirmed. The stake gate reads it in its one locking statement (docs/aml.md).
    class AmlRestriction(models.TextChoices):
        NONE = "", "none"
        REVIEW = "review", "a blocking compliance case is open: money movements and stakes refused"
        REFUSED = "refused", "a blocking compliance case is confirmed: everything refused"

    aml_restriction = models.CharField(max_length=10, choices=AmlRestriction.choices, blank=True, default="")

    # GP §3(5): the last version of the game plan and terms the player accepted (TermsAcceptance keeps the log);
    # read by ``betting_refusal`` from the row the token authentication already loaded (no statement).
    terms_version_accepted = models.PositiveIntegerField(null=True, blank=True)

    # GP §12(5), §12(7): when the personal data were anonymised at the end of the retention periods
    # (``accounts.services.privacy``); the account's ledger, audit and AML records are kept for their own periods.
    anonymised_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        permissions = [
            ("suspend_player", "Suspends and reinstates a player's account"),
            ("close_player", "Closes a player's account (cancels the registration)"),
            ("force_logout_player", "Ends a player's sessions and revokes their tokens"),
            ("check_exclusion", "Asks the register of excluded persons about a player now"),
            ("set_barred_insider", "Sets the barred-insider flag of a player (GP §3(3))"),
            ("register_at_branch", "Registers and identifies players at a branch"),
            ("view_unmasked_identifiers", "Sees birth numbers, document numbers and account numbers unmasked"),
        ]
        indexes = [
            models.Index(fields=["balance_handoff"], name="acc_player_handoff_idx", condition=~Q(balance_handoff="")),
            # the retention job's queue: ended accounts not anonymised yet, by the end of the relationship
            models.Index(
                Coalesce("closed_at", "status_changed_at", "created_at"),
                "id",
                name="acc_player_retention_idx",
                condition=Q(status__in=["closed", "expired", "rejected"], anonymised_at__isnull=True),
            ),
        ]

    def __str__(self):
        # language-independent on purpose: logs, the admin's history (LogEntry.object_repr) and stored texts take it,
        # and a record must not read in whichever language the request that wrote it had
        return f"{self.user.username} ({self.status})"

    @property
    def staff_label(self) -> str:
        """The player as a staff page names them, in the staff member's language ("jana (aktivní)"): the status by
        its label (translated at the admin layer, ``backoffice.admin_i18n``)."""
        return f"{self.user.username} ({self.get_status_display()})"


class PersonalData(models.Model):
    """GP §4(4)a personal data (ZHH + AML) of one player. Changes only through services (audited)."""

    class Sex(models.TextChoices):
        MALE = "M", "male"
        FEMALE = "F", "female"

    class DocumentType(models.TextChoices):
        """GP §2 point 9 (průkaz totožnosti): a Czech citizen shows the identity card, or where it cannot be shown
        a passport or a driving licence; a foreigner an identity card of their state, a passport or a Czech
        residence permit (``accounts.validation``)."""

        ID_CARD = "id_card", "identity card (občanský průkaz / a foreign national identity card)"
        PASSPORT = "passport", "passport"
        DRIVING_LICENCE = "driving_licence", "driving licence (Czech citizens, when the identity card cannot be shown)"
        RESIDENCE_PERMIT = "residence_permit", "residence permit (foreigners)"

    player = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="personal")
    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    birth_surname = models.CharField(max_length=100, blank=True, default="")
    birth_number = models.CharField(max_length=10, blank=True, default="")  # digits only; foreigners may lack one
    date_of_birth = models.DateField()
    place_of_birth = models.CharField(max_length=100)
    sex = models.CharField(max_length=1, choices=Sex.choices)
    citizenship = models.CharField(max_length=2)  # ISO 3166-1 alpha-2
    residence_street = models.CharField(max_length=200)
    residence_city = models.CharField(max_length=100)
    residence_postal_code = models.CharField(max_length=6)
    residence_country = models.CharField(max_length=2, default="CZ")
    # GP §4(4)a: the AML law's permanent residence (trvalý pobyt), kept apart from the residence (bydliště) ZHH
    # asks for; at registration it is the residence unless the applicant gives another one (a foreigner's may be
    # abroad).
    permanent_residence_street = models.CharField(max_length=200, blank=True, default="")
    permanent_residence_city = models.CharField(max_length=100, blank=True, default="")
    permanent_residence_postal_code = models.CharField(max_length=12, blank=True, default="")
    permanent_residence_country = models.CharField(max_length=2, blank=True, default="")
    correspondence_address = models.CharField(max_length=300, blank=True, default="")
    phone = models.CharField(max_length=20)  # E.164
    email = models.EmailField()
    data_box_id = models.CharField(max_length=7, blank=True, default="")
    document_type = models.CharField(max_length=20, choices=DocumentType.choices)
    document_number = models.CharField(max_length=30)
    document_issuing_state = models.CharField(max_length=2)
    document_issuing_authority = models.CharField(max_length=100)
    document_valid_until = models.DateField()
    # GP §2 point 9: a Czech citizen who shows a passport or a driving licence declares the identity card cannot be
    # shown.
    id_card_unavailable = models.BooleanField(default=False)

    # Normalised keys for duplicate detection (GP §4(4)c) and the stable person key (ZHH §14a).
    email_key = models.CharField(max_length=254, db_index=True)
    document_key = models.CharField(max_length=40, db_index=True)
    name_dob_key = models.CharField(max_length=250, db_index=True)
    person_key = models.CharField(max_length=64, db_index=True)
    # The person id the Ministry's AISG interface answered (HID): later checks (login) ask by it.
    aisg_hid = models.UUIDField(null=True, blank=True, db_index=True)
    # A change of the data AISG knows waits to be reported with ZmenitUdajeOsoby (the sweeper retries until then).
    aisg_change_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    updated_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["birth_number"], name="acc_pd_birth_number_idx"),
            models.Index(fields=["phone"], name="acc_pd_phone_idx"),
        ]

    def __str__(self):
        return f"{self.given_names} {self.surname} ({self.date_of_birth})"


class Consent(models.Model):
    """A consent or acknowledgement with the document version (GP §4(4)d, §12(3),(6))."""

    class Kind(models.TextChoices):
        TERMS = "terms", "general terms and conditions"
        DATA_PROCESSING = "data_processing", "personal-data processing (mandatory)"
        GAME_PLAN = "game_plan", "acknowledged the game plan"
        MARKETING = "marketing", "marketing (optional)"

    MANDATORY = (Kind.TERMS, Kind.DATA_PROCESSING, Kind.GAME_PLAN)

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="consents")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    version = models.CharField(max_length=30)
    given_at = models.DateTimeField()
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-given_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "kind"], condition=Q(withdrawn_at__isnull=True), name="acc_consent_one_live_per_kind"
            ),
        ]


class LoginSession(models.Model):
    """One login: started by POST auth/login, ended by logout, idle timeout or a forced logout.

    The limits app counts logins per month and logged-in time from these rows.
    """

    class EndReason(models.TextChoices):
        LOGOUT = "logout", "logout"
        TIMEOUT = "timeout", "idle timeout"
        FORCED = "forced", "forced (limits, exclusion, staff, closure ...)"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="login_sessions")
    started_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, blank=True, default="")
    end_detail = models.CharField(max_length=200, blank=True, default="")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["player", "started_at"], name="acc_session_player_start_idx"),
            models.Index(fields=["last_seen_at"], name="acc_session_open_idx", condition=Q(ended_at__isnull=True)),
        ]


class AuthToken(models.Model):
    """A revocable API token; only its SHA-256 is stored. Login tokens belong to a LoginSession."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="auth_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=50, blank=True, default="")
    session = models.ForeignKey(LoginSession, null=True, blank=True, on_delete=models.CASCADE, related_name="tokens")

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()


class RegisterCheck(models.Model):
    """One question asked of a state register and its answer (population / exclusion)."""

    class Register(models.TextChoices):
        POPULATION = "population", "population register (GP §4(4)c)"
        EXCLUSION = "exclusion", "register of excluded persons"

    class Result(models.TextChoices):
        FOUND = "found", "found, data match"
        NOT_FOUND = "not_found", "not found"
        MISMATCH = "mismatch", "data mismatch"
        UNDER_18 = "under_18", "under 18"
        LISTED = "listed", "listed"
        NOT_LISTED = "not_listed", "not listed"
        UNAVAILABLE = "unavailable", "register unavailable"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="register_checks")
    register = models.CharField(max_length=20, choices=Register.choices)
    context = models.CharField(max_length=30)  # registration, retry, login, periodic, staff ...
    result = models.CharField(max_length=20, choices=Result.choices)
    details = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-checked_at", "-id"]


class RegisterReview(models.Model):
    """An answer of the AISG interface that staff must act on (the staff queue, in the admin):

    * ``manual_review``: the population register could not identify the person (``NENALEZENA``, ``MRTVA``,
      ``DUPLICITA``) or says the person is not adult (``Plnoleta=NE``; the reason names which): the registration (or
      login) did not proceed; staff check the person's documents;
    * ``outage``: no usable answer (timeout, fault, bad signature, ``NEOVERENO``, ``NEODPOVEZENO``): the platform
      failed closed and retries; one open row per player and context counts the repeats."""

    class Kind(models.TextChoices):
        MANUAL_REVIEW = "manual_review", "manual review of the person"
        OUTAGE = "outage", "no answer: failed closed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    player = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True, related_name="register_reviews")
    context = models.CharField(max_length=30)  # registration, retry, login, periodic, staff, personal_data
    reason = models.CharField(max_length=200)
    details = models.JSONField(default=dict, blank=True)  # the answer; for a refused registration the application
    occurrences = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(db_index=True)
    last_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-last_at", "-id"]


class AisgBatch(models.Model):
    """One ``OveritOsobyHromadne`` batch of the periodic re-check: the Ministry's batch number, the players in it
    (row key = player id), and its collection by ``ZiskatVysledkyOveritOsobyHromadne``."""

    class State(models.TextChoices):
        SUBMITTED = "submitted", "submitted (Prijata)"
        COLLECTED = "collected", "results collected (Zpracovana)"
        EXPIRED = "expired", "expired before collection (Ukoncena)"

    batch_id = models.UUIDField(unique=True)
    context = models.CharField(max_length=20)  # daily | session
    player_ids = models.JSONField(default=list)
    state = models.CharField(max_length=20, choices=State.choices, default=State.SUBMITTED)
    submitted_at = models.DateTimeField(db_index=True)
    polls = models.PositiveIntegerField(default=0)
    next_poll_at = models.DateTimeField(db_index=True)
    collected_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-submitted_at", "-id"]


class IdentityVerification(models.Model):
    """AML identification (GP §4(4)b): online through the identification provider (document + likeness, the aml
    app), or at a branch by staff. ``online_register`` rows are history: a register match alone no longer counts."""

    class Method(models.TextChoices):
        ONLINE_PROVIDER = "online_provider", "online, identification provider (document and likeness)"
        BANKID = "bankid", "online, Bank iD (the player's bank identified the person under the AML law)"
        ONLINE_REGISTER = "online_register", "online, population register match (before identification providers)"
        BRANCH = "branch", "at a branch, document inspected by staff"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="identity_verifications")
    method = models.CharField(max_length=20, choices=Method.choices)
    document_type = models.CharField(max_length=20)
    document_number = models.CharField(max_length=30)
    document_issuing_state = models.CharField(max_length=2)
    document_issuing_authority = models.CharField(max_length=100)
    document_valid_until = models.DateField()
    id_card_unavailable = models.BooleanField(default=False)  # GP §2 point 9: the ID card could not be shown
    likeness_confirmed = models.BooleanField(default=False)
    verified_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    verified_at = models.DateTimeField()
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-verified_at", "-id"]


class DuplicateCase(models.Model):
    """Personal data matching another person (GP §4(4)c, §5(3)).

    ``registration``: a refused application waiting for customer support (the submitted data
    are kept in ``application``); ``accounts``: existing accounts of one person found later,
    whose deposits and withdrawals are frozen while the case is open.
    """

    class Kind(models.TextChoices):
        REGISTRATION = "registration", "refused registration"
        ACCOUNTS = "accounts", "existing accounts"

    class State(models.TextChoices):
        OPEN = "open", "open"
        DISTINCT = "distinct", "resolved: different persons"
        CONFIRMED = "confirmed", "resolved: the same person"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    state = models.CharField(max_length=20, choices=State.choices, default=State.OPEN, db_index=True)
    players = models.ManyToManyField(Player, related_name="duplicate_cases", blank=True)
    matched_fields = models.JSONField(default=list)
    application = models.JSONField(null=True, blank=True)  # the refused registration's data
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    resolution_note = models.CharField(max_length=500, blank=True, default="")
    registered_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        permissions = [
            ("resolve_duplicate", "Resolves a duplicate-account case"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"duplicate case #{self.pk} ({self.kind}, {self.state})"


class CorrectionRequest(models.Model):
    """A player's request to correct personal data (GP §12(7)); staff decide in the admin."""

    class State(models.TextChoices):
        PENDING = "pending", "pending"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="correction_requests")
    changes = models.JSONField()  # {field: new value}
    note = models.CharField(max_length=500, blank=True, default="")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING, db_index=True)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decision_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        permissions = [
            ("decide_correction", "Approves or rejects a correction of personal data"),
        ]
        ordering = ["-created_at", "-id"]


class DataRequest(models.Model):
    """A player's request about their personal data (GP §12(7)): an explanation, a blocking (GDPR art. 18) or a
    deletion (GDPR art. 17). Access (``me/export``) and correction (:class:`CorrectionRequest`) have their own paths.

    Written only by ``accounts.services.privacy``; staff decide in the admin, each answer reaches the player through
    the proven inbox (``message_send``). A blocking is in force from its receipt until it is refused, lifted or
    withdrawn (``accounts.selectors.processing_restricted``)."""

    class Kind(models.TextChoices):
        EXPLANATION = "explanation", "explanation (how and why the data are processed)"
        BLOCKING = "blocking", "blocking (restriction of processing, GDPR art. 18)"
        DELETION = "deletion", "deletion (erasure, GDPR art. 17)"

    class State(models.TextChoices):
        PENDING = "pending", "received, to be answered"
        ANSWERED = "answered", "answered (explanation)"
        GRANTED = "granted", "granted"
        PARTLY_GRANTED = "partly_granted", "granted in part (data the law requires are kept for their period)"
        REFUSED = "refused", "refused (with its legal basis)"
        LIFTED = "lifted", "blocking lifted"
        WITHDRAWN = "withdrawn", "withdrawn by the player"

    class Channel(models.TextChoices):
        API = "api", "the player (API)"
        STAFF = "staff", "recorded by staff (received in writing)"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="data_requests")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING)
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.API)
    text = models.TextField(blank=True, default="")  # the player's words
    received_at = models.DateTimeField()
    due_at = models.DateTimeField()  # GDPR art. 12(3): answered within one month of receipt
    entered_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    answer_cs = models.TextField(blank=True, default="")
    answer_en = models.TextField(blank=True, default="")
    # why (a part of) the request is refused: the law that requires the data (GDPR art. 17(3)b, 12(5) ...)
    legal_basis = models.CharField(max_length=500, blank=True, default="")
    # deletion: the first day on which the data kept by law may be erased (None while the account is open)
    erase_on = models.DateField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)  # a blocking lifted or withdrawn

    class Meta:
        permissions = [
            ("decide_data_request", "Decides personal-data requests (GP §12(7))"),
        ]
        ordering = ["-received_at", "-id"]
        indexes = [
            models.Index(fields=["player", "-received_at", "-id"], name="acc_datareq_player_idx"),
            models.Index(fields=["due_at"], name="acc_datareq_open_idx", condition=Q(state="pending")),
        ]
        constraints = [
            # one open request of a kind per player; one blocking in force
            models.UniqueConstraint(
                fields=["player", "kind"],
                name="acc_datareq_one_open_per_kind",
                condition=Q(state="pending") | Q(kind="blocking", state="granted"),
            ),
        ]

    def __str__(self):
        return f"data request #{self.pk} ({self.kind}, {self.state})"


class PersonalDataErasure(models.Model):
    """One group of a player's records anonymised at the end of its retention (``accounts.privacy_contract``): the
    records whose periods are ``retention`` (sorted period codes), done once (unique), with how many rows changed."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="data_erasures")
    retention = models.CharField(max_length=120)
    records = models.JSONField(default=list)
    erased_at = models.DateTimeField()
    rows = models.JSONField(default=dict)

    class Meta:
        ordering = ["player", "erased_at", "id"]
        constraints = [models.UniqueConstraint(fields=["player", "retention"], name="acc_erasure_once")]

    def __str__(self):
        return f"erasure {self.retention} of player {self.player_id}"


class RecipientNotice(models.Model):
    """A notice to a recipient of the data (GP §12(7), GDPR art. 19): a correction or an erasure of a player's
    records it received. Written in the transaction of the change (outbox), e-mailed to the recipient's declared
    contact by ``recipient_notices_send``; it names the player only by our reference."""

    class Event(models.TextChoices):
        CORRECTION = "correction", "personal data corrected"
        ERASURE = "erasure", "records erased at the end of retention"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="recipient_notices")
    recipient = models.CharField(max_length=60)
    event = models.CharField(max_length=12, choices=Event.choices)
    reference = models.CharField(max_length=120)
    records = models.JSONField(default=list)
    fields = models.JSONField(default=list, blank=True, help_text="a correction: the fields changed (no values)")
    contact = models.CharField(max_length=254, blank=True, default="")
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "recipient", "reference"], name="acc_recipient_notice_once")
        ]
        indexes = [
            models.Index(fields=["next_attempt_at"], name="acc_recnotice_due_idx", condition=Q(sent_at__isnull=True))
        ]

    def __str__(self):
        return f"{self.event} notice to {self.recipient} ({self.reference})"


class BarredPerson(models.Model):
    """GP §3(3): the operator's shareholders, employees and statutory officers (kept by staff)."""

    class Role(models.TextChoices):
        SHAREHOLDER = "shareholder", "shareholder"
        EMPLOYEE = "employee", "employee"
        OFFICER = "officer", "statutory officer"

    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    date_of_birth = models.DateField()
    birth_number = models.CharField(max_length=10, blank=True, default="")
    role = models.CharField(max_length=20, choices=Role.choices)
    active = models.BooleanField(default=True)
    name_dob_key = models.CharField(max_length=250, db_index=True, editable=False)
    note = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "barred persons (GP §3(3))"

    def __str__(self):
        return f"{self.given_names} {self.surname} ({self.role})"


# Notices to the player (GP §7(7), §10(4)) -------------------------------------------------------------------------
class Message(models.Model):
    """A notice to one player, in Czech and English, that the operator can prove: it is in the player's in-app
    inbox from its creation (read receipt ``read_at``) and, usually, e-mailed; each channel's outcome is a
    :class:`Delivery`. Written only by ``accounts.services.message_send``; never changed except ``read_at``."""

    class Kind(models.TextChoices):
        WIN_DEDUCTION = "win_deduction", "a credited win deducted (GP §7(7), §10(4))"
        DEBT = "debt", "a debt to pay (GP §7(7))"
        HOLD = "hold", "a win held (GP §10(3))"
        PAYMENT_METHOD_REFUSED = "payment_method_refused", "a payment method refused or cancelled (GP §5(11))"
        ACCOUNT_CANCELLATION = "account_cancellation", "the account cancelled or closing (GP §4(10), §5(15))"
        TERMS_VERSION = "terms_version", "a new version of the game plan and terms (GP §3(5), §8(1))"
        DATA_REQUEST = "data_request", "a personal-data request received or answered (GP §12(7))"
        NOTICE = "notice", "another notice"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="messages")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    subject_cs = models.CharField(max_length=200)
    subject_en = models.CharField(max_length=200)
    body_cs = models.TextField()
    body_en = models.TextField()
    # the caller's identifier of what the notice is about ("wallet.deduction:17"); unique per player when given,
    # so a retried caller does not notify twice
    reference = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["player", "-created_at", "-id"], name="acc_msg_player_idx"),
            models.Index(fields=["player"], name="acc_msg_unread_idx", condition=Q(read_at__isnull=True)),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "reference"], condition=~Q(reference=""), name="acc_msg_one_per_reference"
            ),
        ]

    def __str__(self):
        return f"message #{self.pk} to player {self.player_id} ({self.kind})"


class Delivery(models.Model):
    """How one message reached (or failed to reach) the player on one channel: the inbox at creation, the e-mail
    after commit through the mail backend (``failed`` ones are retried by a sweeper)."""

    class Channel(models.TextChoices):
        INBOX = "inbox", "in-app inbox"
        EMAIL = "email", "e-mail"

    class Status(models.TextChoices):
        PENDING = "pending", "pending (to be sent after commit)"
        DELIVERED = "delivered", "delivered to the inbox"
        SENT = "sent", "accepted by the mail server"
        FAILED = "failed", "failed (retried)"

    message = models.ForeignKey(Message, on_delete=models.PROTECT, related_name="deliveries")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    recipient = models.CharField(max_length=254, blank=True, default="")  # the e-mail address used
    status = models.CharField(max_length=10, choices=Status.choices)
    attempts = models.PositiveIntegerField(default=0)
    attempted_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        permissions = [
            ("resend_message", "Sends failed notices again"),
        ]
        ordering = ["id"]
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(
                fields=["attempted_at"], name="acc_delivery_retry_idx", condition=Q(status__in=["pending", "failed"])
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["message", "channel"], name="acc_delivery_one_per_channel"),
        ]


# The game plan and terms in force (GP §3(5), §8(1), §13(1), §13(6)) --------------------------------------------------
def settings_min_stake() -> int:
    """GP §8(1): the settings' minimum stake (``GP_MIN_STAKE``), what a version carries unless it says otherwise."""
    return settings.GP["MIN_STAKE"]


def settings_stake_step() -> int:
    """GP §8(1): the settings' stake step (``GP_STAKE_STEP``)."""
    return settings.GP["STAKE_STEP"]


class TermsVersion(models.Model):
    """A published version of the game plan and general terms: its text (Czech and English) or a reference to the
    document with its SHA-256, and the minimum stake and step it sets, published by staff and in force from
    ``effective_at``. A player must accept the version in force before the next stake (GP §3(5)); players are told
    of it before it applies (GP §8(1))."""

    version = models.PositiveIntegerField(unique=True)
    title = models.CharField(max_length=200)
    summary_cs = models.TextField(help_text="what changes (e.g. the minimum stake or its step, GP §8(1))")
    summary_en = models.TextField()
    text_cs = models.TextField(blank=True, default="")
    text_en = models.TextField(blank=True, default="")
    document_url = models.CharField(max_length=500, blank=True, default="")
    sha256 = models.CharField(max_length=64)  # of the texts, or of the referenced document
    published_at = models.DateTimeField()
    effective_at = models.DateTimeField()
    published_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    announced_at = models.DateTimeField(null=True, blank=True)  # every player then active/temporary was told
    # GP §8(1): the minimum stake and its step (haléře) this version publishes; while it is in force they are the
    # stake grid (``accounts.terms.stake_grid``), so a change applies only through an announced version
    # (``terms_publish`` always sets both: the latest version's unless staff give new ones; the defaults are the
    # settings' for a row written otherwise)
    min_stake = models.BigIntegerField(
        default=settings_min_stake, help_text="GP §8(1): the minimum stake per round (haléře)"
    )
    stake_step = models.BigIntegerField(
        default=settings_stake_step, help_text="GP §8(1): the step of stakes above the minimum (haléře)"
    )

    class Meta:
        permissions = [
            ("publish_terms", "Publishes a new version of the game plan and terms"),
        ]
        ordering = ["-version"]

    def __str__(self):
        return f"v{self.version} ({self.title}), in force from {self.effective_at:%Y-%m-%d %H:%M} UTC"


class TermsAcceptance(models.Model):
    """A player accepted a version (GP §3(5)): at registration, or through the API before the next stake."""

    class Source(models.TextChoices):
        REGISTRATION = "registration", "registration"
        API = "api", "player (API)"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="terms_acceptances")
    version = models.ForeignKey(TermsVersion, on_delete=models.PROTECT, related_name="acceptances")
    accepted_at = models.DateTimeField()
    source = models.CharField(max_length=20, choices=Source.choices)
    source_address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-accepted_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "version"], name="acc_terms_accepted_once"),
        ]


# Sandbox tables of the adapters (development, tests, demo) --------------------------------
class SandboxPopulationRecord(models.Model):
    """A person as the sandbox population register knows them."""

    birth_number = models.CharField(max_length=10, blank=True, default="", db_index=True)
    given_names = models.CharField(max_length=100)
    surname = models.CharField(max_length=100)
    date_of_birth = models.DateField()
    sex = models.CharField(max_length=1, blank=True, default="")
    citizenship = models.CharField(max_length=2, default="CZ")
    resident_in_cz = models.BooleanField(default=True)
    simulate_unavailable = models.BooleanField(default=False, help_text="answer 'register unavailable' for this person")
    note = models.CharField(max_length=200, blank=True, default="")

    def __str__(self):
        return f"{self.given_names} {self.surname} {self.date_of_birth} {self.birth_number}"


class SandboxExclusionEntry(models.Model):
    """An entry of the sandbox register of excluded persons."""

    class Outcome(models.TextChoices):
        LISTED = "listed", "listed"
        UNAVAILABLE = "unavailable", "answer 'register unavailable'"

    birth_number = models.CharField(max_length=10, blank=True, default="", db_index=True)
    given_names = models.CharField(max_length=100, blank=True, default="")
    surname = models.CharField(max_length=100, blank=True, default="")
    date_of_birth = models.DateField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.LISTED)
    listed_until = models.DateTimeField(null=True, blank=True)
    source = models.CharField(max_length=20, default="ministry")  # ministry | self_request
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "sandbox exclusion entries"


class SandboxSms(models.Model):
    """An SMS 'sent' by the sandbox gateway (tests and the demo read the first password here)."""

    to = models.CharField(max_length=20, db_index=True)
    text = models.TextField()
    purpose = models.CharField(max_length=50, blank=True, default="")
    sent_at = models.DateTimeField()

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = "sandbox SMS"
        verbose_name_plural = "sandbox SMS"
