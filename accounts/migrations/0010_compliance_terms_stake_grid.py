"""GP §8(1): each published version of the game plan and terms carries the minimum stake and its step; the versions
published before get the figures the settings had when this migration ran (the grid they were in force with)."""
from django.conf import settings
from django.db import migrations, models


def figures_of_settings(apps, schema_editor):
    TermsVersion = apps.get_model("accounts", "TermsVersion")
    TermsVersion.objects.update(min_stake=int(settings.GP["MIN_STAKE"]), stake_step=int(settings.GP["STAKE_STEP"]))


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0009_compliance_aml_restriction"),
    ]

    operations = [
        migrations.AddField(
            model_name="termsversion",
            name="min_stake",
            field=models.BigIntegerField(default=10, help_text="GP §8(1): the minimum stake per round (haléře)"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="termsversion",
            name="stake_step",
            field=models.BigIntegerField(default=10, help_text="GP §8(1): the step of stakes above the minimum (haléře)"),
            preserve_default=False,
        ),
        migrations.RunPython(figures_of_settings, migrations.RunPython.noop),
    ]
