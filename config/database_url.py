"""A PostgreSQL URL as Django's ``DATABASES`` entry (``DATABASE_URL``, ``DATABASE_REPLICA_URL``, ``DATABASE_SIDE_URL``).

``postgres://USER:PASSWORD@HOST:PORT/NAME?key=value``, with libpq's forms:

- several hosts for a failover cluster, ``postgres://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write``:
  ``HOST`` becomes ``"h1,h2"`` and ``PORT`` ``"5432,5433"`` (libpq's lists; a host without a port gets an empty slot,
  which libpq reads as the default port; one port for all hosts stays one value), IPv6 hosts in brackets
  (``[::1]:5432``) lose the brackets;
- a Unix socket directory as ``?host=/path`` (the embedded server): ``HOST`` is that directory;
- every other query parameter (``target_session_attrs``, ``sslmode``, ``connect_timeout``, ...) goes to ``OPTIONS``
  as text, which psycopg hands to libpq as it is.

User and password are percent-decoded (``p%40ss`` is ``p@ss``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote

from django.core.exceptions import ImproperlyConfigured

SCHEMES = ("postgres", "postgresql", "pgsql")


def _host_port(item: str) -> tuple[str, str]:
    if item.startswith("["):  # [IPv6]:port
        host, _, rest = item[1:].partition("]")
        return host, rest.removeprefix(":")
    host, _, port = item.partition(":")
    return host, port


def parse_database_url(url: str) -> dict[str, Any]:
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in SCHEMES:
        raise ImproperlyConfigured(f"a database URL starts with one of {', '.join(s + '://' for s in SCHEMES)}")
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    userinfo, at, hostlist = netloc.rpartition("@")
    if not at:
        userinfo, hostlist = "", netloc
    user, _, password = userinfo.partition(":")
    pairs = [_host_port(item) for item in hostlist.split(",")] if hostlist else []
    for _, port in pairs:
        if port and not port.isdigit():
            raise ImproperlyConfigured("a database URL's port must be a number")
    hosts = ",".join(unquote(h) for h, _ in pairs)
    ports = [p for _, p in pairs]
    port = ports[0] if len(ports) == 1 else (",".join(ports) if any(ports) else "")
    options: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "host" and not hosts:
            hosts = value
        else:
            options[key] = value
    entry: dict[str, Any] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(path),
        "USER": unquote(user),
        "PASSWORD": unquote(password),
        "HOST": hosts,
        "PORT": port,
    }
    if options:
        entry["OPTIONS"] = options
    return entry
