"""The staff roles as groups: support, compliance, finance, game_manager, auditor, each with exactly the
permissions ``core/roles.py`` declares. The permissions are created here first (Django otherwise creates them only
after ``migrate``), so the roles exist after ``migrate`` on an empty database; ``core.apps`` syncs them again
after every later ``migrate``."""
from django.contrib.auth.management import create_permissions
from django.db import migrations


def roles_create(apps, schema_editor):  # type: ignore[no-untyped-def]
    from core.roles import roles_sync

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    # not strict: permissions of later migrations do not exist yet; core.apps syncs strictly after the whole migrate
    roles_sync(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"), strict=False)


def roles_remove(apps, schema_editor):  # type: ignore[no-untyped-def]
    from core.roles import ROLES

    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0003_staff_permissions_audit_role"),
        ("accounts", "0006_staff_permissions"),
        ("aml", "0002_staff_permissions"),
        ("games", "0005_staff_permissions"),
        ("jackpots", "0002_staff_permissions"),
        ("limits", "0005_staff_permissions"),
        ("wallet", "0007_staff_permissions"),
        ("complaints", "0002_complaint_event_at_stated"),
    ]

    operations = [migrations.RunPython(roles_create, roles_remove)]
