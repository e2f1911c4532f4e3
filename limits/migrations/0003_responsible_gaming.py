"""Responsible-gaming information (GP §13(4)): texts in Czech and English, editable by staff, starting with the
platform's principles and the tools it offers; help contacts, none built in (staff enter the operator's)."""
from django.db import migrations, models
from django.utils import timezone

TEXTS = [
    ("principles",
     "Zásady zodpovědného hraní",
     "Responsible gaming principles",
     "Hazardní hra je zábava, nikoli způsob výdělku. Hrajte jen s penězi, jejichž ztrátu si můžete dovolit, "
     "nehrajte na dluh a nesnažte se prohry vyhrát zpět. Sázet smějí jen osoby, které dovršily 18 let. Pokud hra "
     "přestává být zábavou, udělejte si přestávku a využijte nástroje popsané níže.",
     "Gambling is entertainment, not a way to earn money. Play only with money you can afford to lose, never "
     "borrow to play and do not try to win back your losses. Only persons aged 18 or over may bet. If play stops "
     "being fun, take a break and use the tools described below."),
    ("self_limits",
     "Sebeomezující opatření",
     "Self-limits",
     "Pro každý druh hazardní hry si můžete nastavit nejvyšší součet sázek a nejvyšší čistou prohru za den a za "
     "kalendářní měsíc, nejvyšší počet přihlášení za měsíc, nejdelší dobu přihlášení za den a přestávku po "
     "odhlášení. Přísnější limit platí ihned, mírnější nejdříve sedmý den po změně.",
     "For each kind of gambling you can set the most you will stake and the largest net loss per day and per "
     "calendar month, the number of logins per month, the longest logged-in time per day and a pause after "
     "logging out. A stricter limit applies at once, a milder one no earlier than the seventh day after the "
     "change."),
    ("break",
     "Povinná přestávka",
     "Compulsory break",
     "Po 120 minutách hry se hra nejméně na 15 minut přeruší. Dobrovolná přestávka alespoň 15 minut začíná "
     "počítání 120 minut znovu. Kolik času do přestávky zbývá, vidíte v aplikaci.",
     "After 120 minutes of play, play stops for at least 15 minutes. A voluntary break of 15 minutes or more starts "
     "the 120 minutes again. The app shows how much play time is left before the break."),
    ("panic_button",
     "Panic button a rejstřík vyloučených osob",
     "Panic button and the register of excluded persons",
     "Tlačítko panic button vás okamžitě vyloučí ze všech hazardních her na 48 hodin; vyloučení se zapíše do "
     "rejstříku fyzických osob vyloučených z účasti na hazardních hrách. O zápis do rejstříku můžete požádat i na "
     "delší dobu, nejméně na jeden rok.",
     "The panic button excludes you from all gambling at once for 48 hours; the exclusion is entered in the "
     "register of persons excluded from gambling. You can also ask to be entered in the register for longer, for "
     "at least one year."),
    ("statistics",
     "Přehled vaší hry",
     "Your play at a glance",
     "V aplikaci vidíte, jak dlouho jste byli přihlášeni a kolik jste vsadili a vyhráli, i svůj čistý výsledek, "
     "za každý den a kalendářní měsíc.",
     "The app shows how long you were logged in, how much you staked and won, and your net result, for each day "
     "and calendar month."),
]


def seed(apps, schema_editor):
    Text = apps.get_model("limits", "ResponsibleGamingText")
    now = timezone.now()
    for order, (key, title_cs, title_en, body_cs, body_en) in enumerate(TEXTS, start=1):
        Text.objects.get_or_create(key=key, defaults={
            "order": order * 10, "title_cs": title_cs, "title_en": title_en, "body_cs": body_cs,
            "body_en": body_en, "published": True, "updated_at": now})


class Migration(migrations.Migration):

    dependencies = [
        ('limits', '0002_panic_person_and_register_report'),
    ]

    operations = [
        migrations.CreateModel(
            name='ResponsibleGamingText',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.SlugField(unique=True)),
                ('order', models.PositiveIntegerField(default=0)),
                ('title_cs', models.CharField(max_length=200)),
                ('title_en', models.CharField(max_length=200)),
                ('body_cs', models.TextField()),
                ('body_en', models.TextField()),
                ('published', models.BooleanField(default=True)),
                ('updated_at', models.DateTimeField()),
            ],
            options={
                'ordering': ['order', 'id'],
            },
        ),
        migrations.CreateModel(
            name='HelpContact',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('order', models.PositiveIntegerField(default=0)),
                ('name_cs', models.CharField(max_length=200)),
                ('name_en', models.CharField(max_length=200)),
                ('description_cs', models.TextField(blank=True, default='')),
                ('description_en', models.TextField(blank=True, default='')),
                ('phone', models.CharField(blank=True, default='', max_length=40)),
                ('email', models.EmailField(blank=True, default='', max_length=254)),
                ('url', models.URLField(blank=True, default='')),
                ('hours_cs', models.CharField(blank=True, default='', max_length=200)),
                ('hours_en', models.CharField(blank=True, default='', max_length=200)),
                ('published', models.BooleanField(default=True)),
                ('updated_at', models.DateTimeField()),
            ],
            options={
                'ordering': ['order', 'id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('email', ''), ('phone', ''), ('url', ''), _negated=True), name='limits_helpcontact_reachable', violation_error_message='Give a phone number, an e-mail address or a web address.')],
            },
        ),
        migrations.RunPython(seed, migrations.RunPython.noop),
    ]
