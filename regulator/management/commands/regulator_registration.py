"""``manage.py regulator_registration --valid-from YYYY-MM-DD [--playground]``: the registration record for the
Customs form (the Ministry's comParamReg.xsd) from the settings, on standard output."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from regulator.config_check import registration_xml


class Command(BaseCommand):
    help = "Print the registration record (comParamReg.xsd) of the remote access from the settings."

    def add_arguments(self, parser):
        parser.add_argument("--valid-from", required=True, help="YYYY-MM-DD: the day the settings take effect")
        parser.add_argument("--playground", action="store_true")

    def handle(self, *args, **opts):
        try:
            valid_from = date.fromisoformat(opts["valid_from"])
        except ValueError:
            raise CommandError(f"not a date: {opts['valid_from']!r}") from None
        self.stdout.write(registration_xml(valid_from=valid_from, playground=opts["playground"]).decode())
