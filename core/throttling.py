"""API throttles: every public and player endpoint, and the providers' callbacks per source.

``REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"]`` applies :class:`AnonRateThrottle` (per client address, rate
``anon``) and :class:`UserRateThrottle` (per signed-in user, rate ``user``) to every API view that does not name
its own throttles; the login and the registration steps name the scoped ones (``login``, ``anon``). The provider
callbacks (no authentication, the signature is the proof) name :class:`CallbackRateThrottle` (every callback, rate
``callback``, per source address) and :class:`CallbackRefusalThrottle` (rate ``callback_refused``: refused
callbacks only, so a source that keeps sending forged or unknown-provider callbacks is answered 429 while a
provider whose callbacks verify is never held back by someone else's forgeries). The rates are
``settings.THROTTLE_RATES`` (each from the environment, ``THROTTLE_RATE_<SCOPE>``). They count in the cache, which
must be shared by every web process in production (``CACHE_URL``, README).

Unlike DRF's classes, these read the rate when they are made (not when DRF was imported), so a changed setting
applies (tests), and their ``wait()`` is never ``None``: every 429 carries ``Retry-After`` (core/errors.py).

A client's address is its IPv4 address, or the /64 network of an IPv6 address (one subscriber usually holds a whole
/64: counting each address apart would let one client rotate through 2**64 of them).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework import throttling
from rest_framework.request import Request
from rest_framework.settings import api_settings


def source_key(address: str) -> str:
    """The throttle and security-event key of a client address: IPv4 as it is, IPv6 as its /64 network."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return (address or "")[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d is the IPv4 client a.b.c.d
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


class _LiveRate:
    """Reads the scope's rate from the settings when the throttle is made, and always proposes a wait."""

    scope: str | None
    history: list[float]
    now: float
    duration: int
    num_requests: int

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if not self.scope or self.scope not in rates:
            raise ImproperlyConfigured(f"no throttle rate for the scope {self.scope!r} (settings.THROTTLE_RATES)")
        rate = rates[self.scope]
        return None if rate is None else str(rate)

    def wait(self) -> float:
        """Seconds until a request is allowed again (DRF's ``None`` when the history is longer than the rate, e.g.
        after the rate was lowered: here the time until the oldest counted request leaves the window)."""
        if not self.history:
            return float(self.duration)
        remaining = self.duration - (self.now - self.history[-1])
        available = self.num_requests - len(self.history) + 1
        return max(remaining / available if available > 0 else remaining, 0.0)


class _BySource:
    def get_ident(self, request: Request) -> str:
        return source_key(request.META.get("REMOTE_ADDR", ""))


class AnonRateThrottle(_BySource, _LiveRate, throttling.AnonRateThrottle):
    """Anonymous callers, per client address (rate ``anon``)."""


class UserRateThrottle(_BySource, _LiveRate, throttling.UserRateThrottle):
    """Signed-in callers per user (rate ``user``); anonymous ones per address at the same rate."""


class ScopedRateThrottle(_BySource, _LiveRate, throttling.ScopedRateThrottle):
    """A view's own scope (``throttle_scope``), per user or client address."""


class FailedTokenThrottle(_BySource, _LiveRate, throttling.SimpleRateThrottle):
    """Refused tokens per client address (rate ``anon``): DRF authenticates before it throttles, so a client trying
    tokens would otherwise cost a lookup each without ever being counted. Called by the token authentication when
    it refuses a token (``accounts.auth``)."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": "token_refused", "ident": self.get_ident(request)}


class CallbackRateThrottle(_BySource, _LiveRate, throttling.SimpleRateThrottle):
    """Every provider callback, per source address (rate ``callback``)."""

    scope = "callback"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class CallbackRefusalThrottle(CallbackRateThrottle):
    """Refused callbacks per source address (rate ``callback_refused``): a request is let through while the source
    has fewer refusals in the window than the rate allows; the view counts a refusal with :meth:`refused`."""

    scope = "callback_refused"

    def throttle_success(self) -> bool:
        return True  # a callback is counted only when it is refused (``refused``)

    @classmethod
    def refused(cls, request: Request, view: Any = None) -> None:
        """Count one refused callback of the request's source."""
        throttle = cls()
        if throttle.rate is None:
            return
        key = throttle.get_cache_key(request, view)
        history: list[float] = throttle.cache.get(key, [])
        now = throttle.timer()
        history = [t for t in history if t > now - throttle.duration]
        history.insert(0, now)
        throttle.cache.set(key, history[: throttle.num_requests + 1], throttle.duration)
