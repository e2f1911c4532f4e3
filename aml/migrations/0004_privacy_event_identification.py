"""IdentificationEvent.identification: the check an event answered, so that its raw body (the data read off the
document) is anonymised with the check (aml/privacy.py). Existing events are linked by the ``reference`` of their
JSON body (the format every adapter here speaks); one that does not parse stays unlinked."""

import json

import django.db.models.deletion
from django.db import migrations, models


def link_events(apps, schema_editor):
    Event = apps.get_model("aml", "IdentificationEvent")
    Check = apps.get_model("aml", "IdentificationCheck")
    for event in Event.objects.filter(identification__isnull=True).iterator():
        try:
            reference = json.loads(event.raw_body).get("reference")
        except (ValueError, AttributeError):
            continue
        check_id = (Check.objects.filter(provider=event.provider, reference=str(reference))
                    .values_list("pk", flat=True).first())
        if check_id is not None:
            Event.objects.filter(pk=event.pk).update(identification_id=check_id)


class Migration(migrations.Migration):

    dependencies = [
        ('aml', '0003_bankid_sign_in'),
    ]

    operations = [
        migrations.AddField(
            model_name='identificationevent',
            name='identification',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='events', to='aml.identificationcheck'),
        ),
        migrations.RunPython(link_events, migrations.RunPython.noop),
    ]
