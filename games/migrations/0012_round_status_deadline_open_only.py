"""The deadline sweeper's index of rounds holds the open rounds only (``WHERE status = 'in_progress'``).

Every query that reads it asks for open rounds (games.services.deadlines, games.selectors), and most rounds settle as
they start: each of those wrote an entry nobody would read (one index insertion and its WAL per settled round).
On the partitioned table ``DROP INDEX`` of the parent's index drops every partition's and ``CREATE INDEX`` on the
parent builds one per partition (a new month's partition gets it from the parent).
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0011_aisg'),
        ('games', '0011_round_player_no_own_index'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='round',
            name='games_round_status_deadline',
        ),
        migrations.AddIndex(
            model_name='round',
            index=models.Index(
                condition=models.Q(('status', 'in_progress')),
                fields=['status', 'deadline'],
                name='games_round_status_deadline',
            ),
        ),
    ]
