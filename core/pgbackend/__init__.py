"""Django's PostgreSQL backend with a health check that needs no round trip on a quiet connection (``base.py``)."""
