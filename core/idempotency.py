"""Idempotency-Key support for unsafe API calls.

Two ways, one contract for the client (same header, same error codes, a replay answers like the first call with
``Idempotent-Replayed: true`` and moves nothing):

- a resource whose own row is unique on (owner, key) -- a game round, a round action -- is its own idempotency
  record: the view reads the key with :func:`request_key` and the service replays the existing row. No extra
  rows or statements on the hot path.
- anything else uses the ``@idempotent()`` decorator below, which keeps a separate record.

``@idempotent()`` on a DRF view method: the whole call runs in one transaction together
with storing its response under (caller, key). A replay with the same key and the same
body returns the stored response (header ``Idempotent-Replayed: true``) and moves
nothing; the same key with a different body is a 409. Two concurrent requests with one
key are serialised on the record's unique index: the second waits for the first to
commit and then replays its response. Refusals (4xx) are not stored: they changed
nothing, so a retry may succeed later.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils import encoders

from core import clock
from core.errors import ErrorDef
from core.models import IdempotencyRecord

KEY_REQUIRED = ErrorDef(
    "idempotency.key_required",
    400,
    "Chybí hlavička Idempotency-Key.",
    "The Idempotency-Key header is required for this call.",
)
KEY_INVALID = ErrorDef(
    "idempotency.key_invalid",
    400,
    "Neplatná hodnota Idempotency-Key (1–128 znaků).",
    "Invalid Idempotency-Key (1-128 printable characters).",
)
KEY_CONFLICT = ErrorDef(
    "idempotency.conflict",
    409,
    "Tento Idempotency-Key byl již použit pro jiný požadavek.",
    "This Idempotency-Key was already used for a different request.",
)


ViewMethod = Callable[..., Response]


def _valid_key(key: str) -> str:
    if not (1 <= len(key) <= 128) or not key.isprintable():
        raise KEY_INVALID()
    return key


def _header(request: Request) -> str | None:
    """The ``Idempotency-Key`` header as sent (``request.META``, which ``request.headers`` is built from: that
    mapping of every header is not built on the hot path for one of them)."""
    return request.META.get("HTTP_IDEMPOTENCY_KEY")


def request_key(request: Request) -> str:
    """The request's Idempotency-Key (``idempotency.key_required`` / ``idempotency.key_invalid`` otherwise)."""
    key = _header(request)
    if key is None:
        raise KEY_REQUIRED()
    return _valid_key(key)


def mark_replayed(response: Response) -> Response:
    """Tell the client this answer is a replay of an earlier call with the same key."""
    response["Idempotent-Replayed"] = "true"
    return response


def _request_hash(request: Request, endpoint: str) -> str:
    """The body's hash. A body DRF cannot parse raises its ``ParseError`` here (400 ``request.invalid``): it must not
    be swallowed, because DRF then hands the view an empty body, and a view whose fields all have defaults would
    act on a request nobody sent (``limits/self-listing`` listed the player for a year)."""
    data = request.data  # ParseError propagates
    try:
        body = json.dumps(data, sort_keys=True, default=str)
    except (TypeError, ValueError):  # pragma: no cover - parsed JSON and form data always serialise
        body = ""
    return hashlib.sha256(f"{endpoint}\n{body}".encode()).hexdigest()


@dataclass(frozen=True)
class IdempotencyRule:
    """What ``@idempotent()`` declared on a view method: read by the OpenAPI schema (``core.schema.AutoSchema``
    declares the ``Idempotency-Key`` header exactly where a view carries the decorator, required where it is)."""

    required: bool
    record: bool  # False: the resource row is its own record (``request_key``)


def idempotency_rule(view_method: Any) -> IdempotencyRule | None:
    """The rule ``@idempotent()`` put on a view method, or None when the method reads no Idempotency-Key."""
    rule = getattr(view_method, "idempotency", None)
    return rule if isinstance(rule, IdempotencyRule) else None


def idempotent(required: bool = True, *, record: bool = True) -> Callable[[ViewMethod], ViewMethod]:
    """The Idempotency-Key contract on a view method (docs/player-api.md, Conventions).

    ``required``: a call without the header is ``idempotency.key_required`` (400); else the header is optional and
    the call without it runs once, as sent. ``record=False``: the view's own row is unique on the key and replays
    itself (a round, a round action; :func:`request_key`), so the decorator checks the header and keeps no separate
    record. Either way the decorator declares the header in the OpenAPI schema (:func:`idempotency_rule`)."""
    rule = IdempotencyRule(required=required, record=record)

    def decorator(view_method: ViewMethod) -> ViewMethod:
        if not record:

            @functools.wraps(view_method)
            def checked(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
                key = _header(request)
                if key is None:
                    if required:
                        raise KEY_REQUIRED()
                else:
                    _valid_key(key)
                return view_method(self, request, *args, **kwargs)

            checked.idempotency = rule  # type: ignore[attr-defined]  # a function attribute the schema reads
            return checked

        @functools.wraps(view_method)
        def wrapper(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:

            key = _header(request)
            if key is None:
                if required:
                    raise KEY_REQUIRED()
                return view_method(self, request, *args, **kwargs)
            _valid_key(key)
            scope = f"user:{request.user.pk}" if request.user.is_authenticated else "anon"
            endpoint = f"{request.method} {request.resolver_match.route if request.resolver_match else request.path}"
            req_hash = _request_hash(request, endpoint)

            def stored(rec: IdempotencyRecord) -> Response:
                if rec.request_hash != req_hash:
                    raise KEY_CONFLICT(key=key)
                return mark_replayed(Response(rec.response_body, status=rec.response_status))

            existing = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
            if existing:
                return stored(existing)
            with transaction.atomic():
                try:
                    with transaction.atomic():
                        # Claim the key first: a concurrent twin blocks here until we commit.
                        rec = IdempotencyRecord.objects.create(
                            scope=scope,
                            key=key,
                            endpoint=endpoint[:200],
                            request_hash=req_hash,
                            response_status=0,
                            response_body={},
                            created_at=clock.now(),
                        )
                except IntegrityError:
                    rec = None
                if rec is not None:
                    response = view_method(self, request, *args, **kwargs)
                    if response.status_code >= 400:
                        transaction.set_rollback(True)
                        return response
                    rec.response_status = response.status_code
                    # as the renderer writes it (a datetime as ISO 8601, "Z" for UTC), so a replay answers the same
                    rec.response_body = json.loads(json.dumps(response.data, cls=encoders.JSONEncoder))
                    rec.save(update_fields=["response_status", "response_body"])
                    return response
            # The twin committed first: replay its result.
            return stored(IdempotencyRecord.objects.get(scope=scope, key=key))

        wrapper.idempotency = rule  # type: ignore[attr-defined]  # a function attribute the schema reads
        return wrapper

    return decorator
