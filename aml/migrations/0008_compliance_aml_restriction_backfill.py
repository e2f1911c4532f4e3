"""Players with a blocking compliance case get the restriction the stake gate reads (docs/aml.md): ``refused`` with a
confirmed one, ``review`` with an open one (accounts' ``Player.aml_restriction``, added by accounts 0007)."""
from django.db import migrations


def backfill(apps, schema_editor):
    Case = apps.get_model("aml", "ComplianceCase")
    Player = apps.get_model("accounts", "Player")
    blocking = Case.objects.filter(blocking=True).exclude(status="cleared")
    confirmed = set(blocking.filter(status="confirmed").values_list("player_id", flat=True))
    still_open = set(blocking.filter(status="open").values_list("player_id", flat=True)) - confirmed
    Player.objects.filter(pk__in=confirmed).update(aml_restriction="refused")
    Player.objects.filter(pk__in=still_open).update(aml_restriction="review")


class Migration(migrations.Migration):

    dependencies = [
        ("aml", "0007_merged_case_kinds"),
        ("accounts", "0009_compliance_aml_restriction"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
