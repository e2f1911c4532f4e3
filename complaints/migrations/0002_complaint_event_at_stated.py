from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('complaints', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='complaint',
            name='event_at_stated',
            field=models.DateTimeField(blank=True, help_text='the time the player stated, if any', null=True),
        ),
    ]
