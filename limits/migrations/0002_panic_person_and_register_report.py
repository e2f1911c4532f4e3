"""The panic button holds for the person (``PanicExclusion.person_key``) and each press is reported to the register
of excluded persons through an outbox (``PanicReport``).

Existing presses get the person key of their account; those still running get a report due at once, so the
register learns of them too."""
import uuid

import django.db.models.deletion
from django.db import migrations, models
from django.utils import timezone


def backfill(apps, schema_editor):
    PanicExclusion = apps.get_model("limits", "PanicExclusion")
    PanicReport = apps.get_model("limits", "PanicReport")
    PersonalData = apps.get_model("accounts", "PersonalData")
    now = timezone.now()
    for panic in PanicExclusion.objects.filter(person_key="").iterator():
        key = PersonalData.objects.filter(player_id=panic.player_id).values_list("person_key", flat=True).first()
        if key:
            PanicExclusion.objects.filter(pk=panic.pk).update(person_key=key)
    PanicReport.objects.bulk_create([
        PanicReport(panic_id=pk, reference=f"panic-{uuid.uuid4().hex}", created_at=now, next_attempt_at=now)
        for pk in PanicExclusion.objects.filter(ends_at__gt=now).values_list("pk", flat=True)
    ])


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0002_registration_sessions_personal_data'),
        ('limits', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='PanicReport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reference', models.CharField(max_length=64, unique=True)),
                ('status', models.CharField(choices=[('pending', 'pending (to be sent or retried)'), ('acknowledged', 'acknowledged by the register')], default='pending', max_length=12)),
                ('created_at', models.DateTimeField()),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('last_attempt_at', models.DateTimeField(blank=True, null=True)),
                ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                ('acknowledged_at', models.DateTimeField(blank=True, null=True)),
                ('register_reference', models.CharField(blank=True, default='', max_length=100)),
                ('last_error', models.CharField(blank=True, default='', max_length=300)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.AddField(
            model_name='panicexclusion',
            name='person_key',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddIndex(
            model_name='panicexclusion',
            index=models.Index(fields=['person_key', 'ends_at'], name='limits_panic_person_ends_idx'),
        ),
        migrations.AddField(
            model_name='panicreport',
            name='panic',
            field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='report', to='limits.panicexclusion'),
        ),
        migrations.AddIndex(
            model_name='panicreport',
            index=models.Index(condition=models.Q(('status', 'pending')), fields=['next_attempt_at'], name='limits_panicreport_due_idx'),
        ),
        migrations.AddConstraint(
            model_name='panicreport',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('acknowledged_at__isnull', True), ('status', 'pending')), models.Q(('acknowledged_at__isnull', False), ('status', 'acknowledged')), _connector='OR'), name='limits_panicreport_ack_has_time'),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
