"""A mail backend that refuses everything (tests of the outbox retry)."""

from django.core.mail.backends.base import BaseEmailBackend


class Backend(BaseEmailBackend):
    def send_messages(self, email_messages):
        raise ConnectionRefusedError("SMTP server refused the connection")
