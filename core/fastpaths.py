"""Eight per-call costs of the libraries under every request, removed once per process (``install()``, called by
``core.apps.CoreConfig.ready()``, so the web, Celery, management commands and the tests all run with them).

Each is a documented patch of a library (the house rule for monkeypatching: why, what exactly, a test that the
behaviour is the same, and a test that fails when the library changes so that the patch no longer applies:
``core/tests/test_fastpaths.py``). They were found by callgrind on settled rounds through the WSGI application
(``scripts/bench_round_cpu.py``): under CPython 3.11 a failed attribute lookup that falls back to ``__getattr__``
formats an AttributeError message and drops it, and ``try: get_running_loop() except RuntimeError`` builds an
exception object on every call of a thread that runs no event loop (every thread of a WSGI worker).

1. **The database connections' per-thread storage** (``django.db.connections._connections``): Django keeps it in
   asgiref's ``Local(thread_critical=True)``, whose ``__getattr__`` asks ``asyncio.get_running_loop()`` (a
   RuntimeError raised and caught in a sync thread) before reading a plain ``threading.local``; ~30 times a round
   (every ``connections[alias]``, so every ``connection.x``, ``transaction.atomic``, cursor). It is replaced by
   :class:`_ConnectionsLocal`, which reads the SAME ``threading.local`` when no event loop runs in the thread
   (``asyncio._get_running_loop() is None``: the test ``get_running_loop`` itself makes before raising) and hands any
   access from a thread that runs a loop to asgiref's original object, so data already stored, sync or async, stays
   where asgiref put it and async code keeps its per-context connections.
2. **``django.utils.asyncio.async_unsafe``** (the database wrapper's ``cursor``, ``connect``, ``ensure_connection``,
   ``commit``, the savepoints...; ~30 times a round): the same check without the exception: the methods of the
   database wrappers' classes that Django decorated are wrapped again around the same function, with the same
   message, raising ``SynchronousOnlyOperation`` in a thread that runs an event loop unless
   ``DJANGO_ALLOW_ASYNC_UNSAFE`` is set, exactly as Django's ``inner`` does.
3. **``settings.X``** (~90 times a round: ``timezone.now()``'s ``USE_TZ``, the backend's ``DEBUG``, the house's
   rules): ``django.conf.LazySettings`` inherits ``LazyObject.__getattribute__``, a Python function run on every read
   of a setting already cached in the instance's ``__dict__``, which looks for ``_mask_wrapped`` on the value. Its
   purpose is to hide LazyObject's operator proxies (``__len__``, ``__iter__``, ``__getitem__``...) from ``hasattr``
   when the wrapped object lacks them. ``LazySettings.__getattribute__`` is set to ``object.__getattribute__``: a
   setting is read from the instance's ``__dict__`` in C, a first read still goes to ``LazySettings.__getattr__``
   (which loads and caches it), ``override_settings`` and assignment still clear the cache through
   ``LazySettings.__setattr__``/``__delattr__``. The one difference, tested: explicit access to those operator
   proxies on ``settings`` (``hasattr(settings, "__len__")``) finds the proxy instead of answering for the wrapped
   ``Settings``; the operators themselves behave as before, and nothing reads them.
4. (psycopg2's quoting of ``int``, ``bool`` and pre-quoted values: gone with psycopg2; the platform runs on
   psycopg 3, ``core/pgbackend/``.)
5. **Django's lazily compiled regular expressions** read on every request (:data:`HOT_LAZY_REGEXES`): each is a
   ``SimpleLazyObject`` whose every use (``.search``, ``.match``, ``.split``) fails a Python ``__getattribute__``
   with a formatted AttributeError and then goes through the proxy's ``__getattr__``; ~10 a round. Each is replaced,
   where Django keeps it (the module's global or the class attribute its function reads), by the compiled pattern the
   proxy stands for: the same object, called directly.
6. (psycopg2's decoding of the names it reads from the server: gone with psycopg2.)
7. **``connections.all(initialized_only=True)``** (three times a request: Django's ``close_old_connections`` on
   ``request_started`` and ``request_finished``, ``reset_queries``): Django's asks ``hasattr(connections._connections,
   alias)`` for every configured alias (a formatted AttributeError through :class:`_ConnectionsLocal`'s Python frame
   for each alias this thread has not opened, ``refusal_log`` on most requests), then reads each again through
   ``connections[alias]``. In a thread that runs no event loop, with :class:`_ConnectionsLocal` in place,
   :func:`connections_all` reads the same ``threading.local``'s ``__dict__`` once: the connections of the configured
   aliases this thread has set up, in the settings' order, the very objects ``connections[alias]`` returns. Anything
   else (an event loop, asgiref's storage, an alias that names an attribute of ``threading.local`` itself,
   ``initialized_only=False``) is Django's own ``all``.
8. **The request signals' receivers** (``request_started``, ``request_finished``; Django's handler sends each once a
   request): Django's ``Signal`` supports caching the live receivers per sender (``use_caching=True``, what the
   model signals use); the request signals are made without it, so every send takes the signal's lock, computes the
   sender's id (``hasattr(handler_class, "__func__")``: a formatted AttributeError) and filters the receivers again.
   :func:`install_signal_caching` turns Django's caching on for the two, with a plain ``dict`` as the cache (Django's
   ``WeakKeyDictionary`` cannot take ``sender=None``, which ``HttpResponse.close()`` sends for a response no handler
   served). Django's ``connect``/``disconnect`` clear the cache, so a receiver connected at run time by any app runs
   from the next send on, and every receiver still runs with the same arguments, in the same order.
9. **A response header set** (``ResponseHeaders.__setitem__``: ~12 an answer, the content type, ``Vary``, ``Allow``,
   the security headers, the language, the length, the request id): Django converts the name and the value with two
   Python calls of ``_convert_to_charset``, each encoding the text to check it (ASCII for the name, Latin-1 for the
   value) and looking for a newline (``BadHeaderError``). :func:`header_setitem` stores a name and a value that are
   both exact ``str``, ASCII and free of ``\n`` and ``\r`` as they are, which is what those calls give back for them
   (an ASCII text encodes in both charsets; the text itself is returned); anything else (bytes, a number, a lazy
   text, a non-ASCII value that Django MIME-encodes, a newline that it refuses) and a subclass of ``ResponseHeaders``
   go through Django's own ``__setitem__``.
10. **A value read from asgiref's ``Local``** (not thread-critical: the caches' connections, ``caches["default"]``,
    read by every ``cache.get``/``cache.set`` of the throttles and by ``close_caches`` at a request's end; the active
    translation, ``get_language()``; the URL prefix): ``Local`` keeps its values in a context variable behind a
    lock, and a read takes two Python ``__getattr__`` calls, each after a failed lookup that formats an
    AttributeError (``_DefaultLocal``'s, then its ``_CVar``'s): ~14,000 instructions a read, ~6 a round. For the
    names in :data:`LOCAL_FAST_NAMES` a non-data descriptor on asgiref's ``_DefaultLocal`` (:class:`_LocalValue`)
    reads the same storage under the same lock (``_CVar._storage()``: the context's data when this thread owns it);
    a name not set there raises AttributeError from the descriptor, and Python then calls ``_DefaultLocal``'s own
    ``__getattr__``, which raises asgiref's error as before. Writes and deletions keep asgiref's own methods (the
    instance's ``__setattr__``/``__delattr__`` are its class's, which never consult a descriptor).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import re
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from asgiref.local import Local
from django.conf import LazySettings, settings
from django.core import signals as django_signals
from django.core.cache.backends import base as cache_backends_base
from django.core.exceptions import SynchronousOnlyOperation
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.sql import compiler as sql_compiler
from django.db.models.sql import query as sql_query
from django.db.utils import ConnectionHandler, load_backend
from django.dispatch import Signal
from django.http import request as http_request
from django.http import response as http_response
from django.utils import cache as utils_cache
from django.utils.asyncio import async_unsafe
from django.utils.connection import BaseConnectionHandler
from django.utils.functional import LazyObject, SimpleLazyObject, empty
from django.utils.translation import trans_real

#: the C function behind ``asyncio.get_running_loop()``: the running loop of this thread, or None (no exception)
_running_loop: Callable[[], Any] = asyncio._get_running_loop

_object_getattribute = object.__getattribute__
_object_setattr = object.__setattr__


# 1. the connections' storage ------------------------------------------------------------------------------------


class _ConnectionsLocal:
    """Stands in for asgiref's ``Local(thread_critical=True)`` of Django's connection handler: in a thread that
    runs no event loop an attribute is read, set and deleted on asgiref's own ``threading.local`` (what asgiref does
    there, without its RuntimeError); in a thread that runs one, on asgiref's original object (its async
    storage)."""

    __slots__ = ("_fast_original", "_fast_storage")

    def __init__(self, original: Any) -> None:
        _object_setattr(self, "_fast_original", original)
        _object_setattr(self, "_fast_storage", _object_getattribute(original, "_storage"))

    def __getattribute__(self, key: str) -> Any:
        if _running_loop() is None:
            return getattr(_STORAGE_SLOT(self), key)
        return getattr(_ORIGINAL_SLOT(self), key)

    def __setattr__(self, key: str, value: Any) -> None:
        if _running_loop() is None:
            setattr(_STORAGE_SLOT(self), key, value)
        else:
            setattr(_ORIGINAL_SLOT(self), key, value)

    def __delattr__(self, key: str) -> None:
        if _running_loop() is None:
            delattr(_STORAGE_SLOT(self), key)
        else:
            delattr(_ORIGINAL_SLOT(self), key)


_STORAGE_SLOT: Callable[[_ConnectionsLocal], Any] = _ConnectionsLocal._fast_storage.__get__  # type: ignore[attr-defined]
_ORIGINAL_SLOT: Callable[[_ConnectionsLocal], Any] = _ConnectionsLocal._fast_original.__get__  # type: ignore[attr-defined]


def _asgiref_thread_critical_class() -> type:
    """The class asgiref instantiates for ``Local(thread_critical=True)`` (the one this module stands in for)."""
    return type(Local(thread_critical=True))


def install_connections_local() -> bool:
    """Put a :class:`_ConnectionsLocal` over ``django.db.connections``' storage (idempotent); False when the storage
    is not asgiref's thread-critical ``Local`` with a ``threading.local`` inside (the library changed: left alone)."""
    handler: Any = connections  # django-stubs do not declare the handler's storage
    current = handler._connections
    if type(current) is _ConnectionsLocal:
        return True
    if type(current) is not _asgiref_thread_critical_class():
        return False
    try:
        storage = _object_getattribute(current, "_storage")
    except AttributeError:  # safe: the library changed; the patch is not applied (asgiref keeps its storage)
        return False
    if type(storage) is not threading.local:
        return False
    handler._connections = _ConnectionsLocal(current)
    return True


# 2. async_unsafe -------------------------------------------------------------------------------------------------

#: the code object of Django's ``async_unsafe`` wrapper (every decorated function shares it)
_ASYNC_UNSAFE_CODE = async_unsafe("probe")(lambda: None).__code__


def _async_unsafe_parts(inner: Any) -> tuple[Callable[..., Any], str] | None:
    """(the wrapped function, the message) of a function made by Django's ``async_unsafe``, or None."""
    if getattr(inner, "__code__", None) is not _ASYNC_UNSAFE_CODE or inner.__closure__ is None:
        return None
    cells = dict(zip(inner.__code__.co_freevars, (c.cell_contents for c in inner.__closure__), strict=True))
    func, message = cells.get("func"), cells.get("message")
    if not callable(func) or not isinstance(message, str):
        return None
    return func, message


def fast_async_unsafe(func: Callable[..., Any], message: str) -> Callable[..., Any]:
    """Django's ``async_unsafe(message)(func)``, asking for the running loop without raising."""

    @functools.wraps(func)
    def inner(*args: Any, **kwargs: Any) -> Any:
        if _running_loop() is not None and not os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE"):
            raise SynchronousOnlyOperation(message)
        return func(*args, **kwargs)

    inner._fast_async_unsafe = True  # type: ignore[attr-defined]
    return inner


def _subclasses(root: type) -> list[type]:
    out, pending = [], [root]
    while pending:
        cls = pending.pop()
        out.append(cls)
        pending.extend(cls.__subclasses__())
    return out


def install_async_unsafe() -> int:
    """Rewrap every ``async_unsafe`` method of the database wrappers' classes (the configured backends imported
    first, so their own methods are among them); returns how many."""
    for database in settings.DATABASES.values():
        load_backend(database["ENGINE"])
    done = 0
    for cls in _subclasses(BaseDatabaseWrapper):
        for name, value in list(vars(cls).items()):
            parts = _async_unsafe_parts(value)
            if parts is not None:
                setattr(cls, name, fast_async_unsafe(*parts))
                done += 1
    return done


# 3. settings -----------------------------------------------------------------------------------------------------


def install_settings_getattribute() -> bool:
    """``LazySettings.__getattribute__ = object.__getattribute__`` (idempotent); False when LazySettings does not
    inherit the ``LazyObject.__getattribute__`` this replaces (the library changed: left alone)."""
    current = LazySettings.__dict__.get("__getattribute__")
    if current is object.__getattribute__:
        return True
    if current is not None or LazySettings.__getattribute__ is not LazyObject.__dict__.get("__getattribute__"):
        return False
    LazySettings.__getattribute__ = object.__getattribute__  # type: ignore[method-assign]
    return True


# 5. Django's lazily compiled regular expressions ------------------------------------------------------------------

#: (module, class or None, attribute) of the ``_lazy_re_compile`` objects a request reads, by the Django function
#: that reads them: ``SQLCompiler.get_order_by``, ``get_language_from_path``, ``memcache_key_warnings`` (every cache
#: key), ``split_domain_port``, ``HttpResponse.charset``, ``patch_vary_headers``, ``Query.check_alias``
HOT_LAZY_REGEXES: tuple[tuple[ModuleType, str | None, str], ...] = (
    (sql_compiler, "SQLCompiler", "ordering_parts"),
    (trans_real, None, "language_code_prefix_re"),
    (cache_backends_base, None, "memcached_error_chars_re"),
    (http_request, None, "host_validation_re"),
    (http_response, None, "_charset_from_content_type_re"),
    (utils_cache, None, "cc_delim_re"),
    (sql_query, None, "FORBIDDEN_ALIAS_PATTERN"),
)


def install_eager_regexes() -> int:
    """Replace each of :data:`HOT_LAZY_REGEXES` by the compiled pattern its ``SimpleLazyObject`` stands for (the
    same object the proxy would call: ``_lazy_re_compile``'s ``re.compile(regex, flags)``); returns how many hold a
    compiled pattern now. Each use through the proxy cost a Python ``__getattribute__`` that fails with a formatted
    AttributeError, then the proxy's ``__getattr__``: ~10 a round."""
    done = 0
    for module, class_name, attribute in HOT_LAZY_REGEXES:
        holder: Any = module
        if class_name is not None:
            holder = getattr(holder, class_name, None)
        lazy: Any = getattr(holder, attribute, None)
        if type(lazy) is re.Pattern:  # type(), not isinstance(): the proxy passes isinstance() as its wrapped class
            done += 1
            continue
        if type(lazy) is not SimpleLazyObject:
            continue  # the library changed: left alone (the test names it)
        proxy: Any = lazy  # django-stubs do not declare LazyObject's internals
        if proxy._wrapped is empty:
            proxy._setup()
        compiled = proxy._wrapped
        if type(compiled) is re.Pattern:
            setattr(holder, attribute, compiled)
            done += 1
    return done


# 7. connections.all(initialized_only=True) ------------------------------------------------------------------------

#: Django's ``all`` (``BaseConnectionHandler.all``), which :func:`connections_all` answers for when it can
_django_all: Callable[..., Any] = BaseConnectionHandler.all

#: the names a ``threading.local`` answers by itself (an alias among them: Django's ``all``)
_LOCAL_NAMES = frozenset(dir(threading.local))


def connections_all(self: Any, initialized_only: bool = False) -> Any:
    """Django's ``ConnectionHandler.all``; with ``initialized_only`` in a thread that runs no event loop, the
    connections this thread set up read from the ``threading.local`` behind :class:`_ConnectionsLocal` (the module's
    docstring, 7)."""
    if initialized_only:
        local = self._connections
        if type(local) is _ConnectionsLocal and _running_loop() is None:
            aliases = self.settings
            if _LOCAL_NAMES.isdisjoint(aliases):
                stored = vars(_STORAGE_SLOT(local))
                return [stored[alias] for alias in aliases if alias in stored]
    return _django_all(self, initialized_only)


def install_connections_all() -> bool:
    """``ConnectionHandler.all = connections_all`` (idempotent); False when Django's handler has an ``all`` of its own
    or ``BaseConnectionHandler.all`` no longer takes ``(self, initialized_only=False)`` (the library changed: left
    alone)."""
    current = vars(ConnectionHandler).get("all")
    if current is connections_all:
        return True
    if current is not None or list(inspect.signature(_django_all).parameters) != ["self", "initialized_only"]:
        return False
    ConnectionHandler.all = connections_all  # type: ignore[method-assign]
    return True


# 8. the request signals' receivers cached ------------------------------------------------------------------------

#: the signals Django's handlers send once a request
REQUEST_SIGNALS = (django_signals.request_started, django_signals.request_finished)


def install_signal_caching() -> int:
    """Django's receiver caching on :data:`REQUEST_SIGNALS` (idempotent); how many have it. A signal is left alone
    when it is not Django's ``Signal`` itself or ``Signal._live_receivers`` no longer reads ``use_caching`` and
    ``sender_receivers_cache`` (the library changed)."""
    names = Signal._live_receivers.__code__.co_names
    if "use_caching" not in names or "sender_receivers_cache" not in names:
        return 0
    done = 0
    for signal in REQUEST_SIGNALS:
        if type(signal) is not Signal or not isinstance(vars(signal).get("sender_receivers_cache"), dict):
            continue
        if not signal.use_caching:
            with signal.lock:
                signal.sender_receivers_cache = {}  # a plain dict: sender=None is sent too (the module's docstring)
                signal.use_caching = True
        done += 1
    return done


# 9. a response header set ---------------------------------------------------------------------------------------

#: Django's ``ResponseHeaders.__setitem__``, which :func:`header_setitem` hands everything but plain text to
_django_header_setitem: Callable[..., None] = http_response.ResponseHeaders.__setitem__


def header_setitem(self: Any, key: Any, value: Any) -> None:
    """Django's ``ResponseHeaders.__setitem__``; an exact ``str`` name and value, ASCII and without a line break, are
    stored as Django's conversion gives them back (the module's docstring, 9)."""
    if (
        type(key) is str
        and type(value) is str
        and type(self) is http_response.ResponseHeaders
        and key.isascii()
        and value.isascii()
        and "\n" not in key
        and "\r" not in key
        and "\n" not in value
        and "\r" not in value
    ):
        self._store[key.lower()] = (key, value)
        return
    _django_header_setitem(self, key, value)


def install_response_headers() -> bool:
    """``ResponseHeaders.__setitem__ = header_setitem`` (idempotent); False when Django's no longer converts the name
    and the value with ``_convert_to_charset`` into ``_store[key.lower()]`` (the library changed: left alone)."""
    headers = http_response.ResponseHeaders
    if headers.__setitem__ is header_setitem:
        return True
    names = _django_header_setitem.__code__.co_names
    if _django_header_setitem.__qualname__ != "ResponseHeaders.__setitem__" or not {
        "_convert_to_charset",
        "_store",
        "lower",
    } <= set(names):
        return False
    headers.__setitem__ = header_setitem  # type: ignore[method-assign]
    return True


# 10. a value read from asgiref's Local --------------------------------------------------------------------------

#: the names read from non-thread-critical ``Local`` objects on every request: ``value`` (the active translation,
#: the URL prefix and URLconf) and ``default`` (the default cache's connection)
LOCAL_FAST_NAMES = ("value", "default")


class _LocalValue:
    """A read of one name of an asgiref ``_DefaultLocal`` (the module's docstring, 10): the value its ``__getattr__``
    returns, without the two failed lookups; AttributeError when it is not set, so that ``__getattr__`` answers."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)
        lock = obj._lock
        lock.acquire()
        try:
            return obj._storage._storage().data[self.name]
        except KeyError:
            pass  # not set in this context: asgiref's __getattr__ (called next by Python) raises its own error
        finally:
            lock.release()
        raise AttributeError(self.name)


def _default_local_class() -> type | None:
    """asgiref's class of a ``Local()`` that is not thread-critical, when it is still the one :class:`_LocalValue`
    reads (its value in ``_storage._storage().data`` under ``_lock``, read by a Python ``__getattr__``); else None."""
    local = Local()
    cls = type(local)
    try:
        storage, lock = _object_getattribute(local, "_storage"), _object_getattribute(local, "_lock")
    except AttributeError:  # safe: the library changed; the patch is not applied
        return None
    getattr_code = getattr(vars(cls).get("__getattr__"), "__code__", None)
    own = getattr(type(storage), "_storage", None)
    if getattr_code is None or "_storage" not in getattr_code.co_names or not callable(own):
        return None
    if not hasattr(lock, "acquire") or not isinstance(getattr(own(storage), "data", None), dict):
        return None
    return cls


def install_local_reads() -> int:
    """:class:`_LocalValue` for each of :data:`LOCAL_FAST_NAMES` on asgiref's ``_DefaultLocal`` (idempotent); how
    many are in place (0 when the library changed: left alone)."""
    cls = _default_local_class()
    if cls is None:
        return 0
    done = 0
    for name in LOCAL_FAST_NAMES:
        current = vars(cls).get(name)
        if current is None:
            setattr(cls, name, _LocalValue(name))
            current = vars(cls)[name]
        done += type(current) is _LocalValue
    return done


def install() -> dict[str, object]:
    """All eight, once per process (each idempotent); what each did, for the tests."""
    return {
        "connections_local": install_connections_local(),
        "async_unsafe": install_async_unsafe(),
        "settings": install_settings_getattribute(),
        "eager_regexes": install_eager_regexes(),
        "connections_all": install_connections_all(),
        "signal_caching": install_signal_caching(),
        "response_headers": install_response_headers(),
        "local_reads": install_local_reads(),
    }
