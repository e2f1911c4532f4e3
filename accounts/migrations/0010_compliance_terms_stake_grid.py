"""GP §8(1): each published version of the game plan and terms carries the minimum stake and its step; the versions
published before get the figures the settings have when this migration runs (the grid they were in force with)."""
import accounts.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0009_compliance_aml_restriction"),
    ]

    operations = [
        migrations.AddField(
            model_name="termsversion",
            name="min_stake",
            field=models.BigIntegerField(default=accounts.models.settings_min_stake,
                                         help_text="GP §8(1): the minimum stake per round (haléře)"),
        ),
        migrations.AddField(
            model_name="termsversion",
            name="stake_step",
            field=models.BigIntegerField(default=accounts.models.settings_stake_step,
                                         help_text="GP §8(1): the step of stakes above the minimum (haléře)"),
        ),
    ]
