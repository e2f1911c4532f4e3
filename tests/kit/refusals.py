"""The kit's refusals: a service that refuses raises a ``core.errors.DomainError`` with the ``ErrorDef``'s code; an
API that refuses answers ``{"error": {"code", "message_cs", "message_en", "details"}}``.

Assert a refusal with the ``ErrorDef`` constant of the app's ``errors.py`` (``refused(call, errors.INSUFFICIENT)``,
``refused_response(r, errors.INSUFFICIENT, http=409)``): go-to-definition finds the rule, and a renamed code fails
at import, not as a string that silently no longer matches. A literal code string is still accepted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.errors import DomainError


def _code(error: object) -> str:
    return str(getattr(error, "code", error))


def refusal_of(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> DomainError:
    """Call ``fn(*args, **kwargs)`` and return the DomainError it raises (fails if it raises none)."""
    with pytest.raises(DomainError) as exc:
        fn(*args, **kwargs)
    return exc.value


def refused(call: Callable[[], Any], error: object, /) -> DomainError:
    """``call()`` is refused with ``error`` (an ErrorDef, or its code); returns the DomainError."""
    err = refusal_of(call)
    assert getattr(err, "code", None) == _code(error), err
    return err


def refused_response(r: Any, error: object, /, http: int = 409, **details: Any) -> dict[str, Any]:
    """The API refused with ``error`` (an ErrorDef, or its code) and HTTP status ``http``, both messages present and
    each of ``details`` as given; returns the error body."""
    assert r.status_code == http, (r.status_code, r.content[:800])
    body = r.json()["error"]
    assert body["code"] == _code(error), body
    assert body["message_cs"] and body["message_en"], body
    for name, value in details.items():
        assert body["details"][name] == value, body
    return body


def refusal_code(refusal: DomainError | None) -> str | None:
    """The code of a refusal a check returns (``betting_refusal``, ``screening_refusal``...), None when it has none."""
    return refusal.code if refusal is not None else None
