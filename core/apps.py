from typing import Any

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.core import checks
from django.db.models.signals import post_migrate


def _declared_permissions() -> set[str]:
    """Every permission the models declare ("app_label.codename": the defaults and each ``Meta.permissions``)."""
    from django.apps import apps

    out: set[str] = set()
    for model in apps.get_models():
        opts = model._meta
        out |= {f"{opts.app_label}.{action}_{opts.model_name}" for action in opts.default_permissions}
        out |= {f"{opts.app_label}.{codename}" for codename, _ in opts.permissions}
    return out


def _prepare_hot_statements(sender: Any, connection: Any, **kwargs: Any) -> None:
    """A new connection of the primary prepares the hot statements (core/sql.py), where the settings allow it. Each
    app's ``ready()`` imports its ``sql`` module, so the registry is complete before the first connection."""
    from django.conf import settings

    if connection.alias == "default" and connection.vendor == "postgresql" and settings.DATABASE_PREPARED_STATEMENTS:
        from core.sql import prepare_hot_statements

        prepare_hot_statements(connection)


def _prepare_after_migrate(sender: Any, using: str = "default", plan: Any = None, **kwargs: Any) -> None:
    """After ``migrate`` the tables may have changed (or, on a database made by it, exist at last): prepare the hot
    statements again on the connection that migrated, unless it is inside a transaction (a PREPARE refused there
    would abort it). A ``flush`` (no plan) changes no table: nothing to do once they are all prepared."""
    from django.conf import settings
    from django.db import connections

    from core.sql import hot_statements_complete, prepare_hot_statements

    connection = connections[using]
    if (
        using != "default"
        or not settings.DATABASE_PREPARED_STATEMENTS
        or connection.connection is None
        or connection.in_atomic_block
        or (not plan and hot_statements_complete(connection))
    ):
        return
    prepare_hot_statements(connection)


def check_staff_permissions(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """core.E010: a staff endpoint or admin decision names a permission no model declares (a typo would make a
    check that no role passes and every superuser passes unnoticed); core.E011: a role names one; core.E012: a home-page
    link (``core.home``) names one."""
    from core.admin import ADMIN_DECISION_PERMISSIONS
    from core.home import declared_link_permissions
    from core.permissions import REQUIRED_PERMISSIONS
    from core.roles import ROLES, expand

    declared = _declared_permissions()
    errors: list[checks.CheckMessage] = [
        checks.Error(f"the staff permission {perm!r} is not declared by any model", id="core.E010")
        for perm in sorted((REQUIRED_PERMISSIONS | ADMIN_DECISION_PERMISSIONS) - declared)
    ]
    errors += [
        checks.Error(f"a home-page link names the permission {perm!r}, which no model declares", id="core.E012")
        for perm in sorted(declared_link_permissions() - declared)
    ]
    pairs = {(app, codename) for app, codename in (p.split(".", 1) for p in declared)}
    for role in ROLES.values():
        try:
            expand(role.permissions, pairs)
        except LookupError as exc:
            errors.append(checks.Error(f"role {role.name}: {exc}", id="core.E011"))
    return errors


def _sync_roles(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """After every migrate (and a test database's flush): the role groups hold exactly their declared permissions."""
    from django.apps import apps

    # post_migrate is sent once per app with models, in INSTALLED_APPS order, and auth creates each app's permissions
    # on that app's signal: only on the last such app do all of them exist (an app without models, the back office,
    # gets no signal)
    with_models = [c for c in apps.get_app_configs() if c.models_module is not None]
    if using != "default" or sender is not with_models[-1]:
        return
    from core.roles import roles_sync

    roles_sync()


def _partitions_ensure(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """After every migrate: this month's partition and the ones ahead of each monthly-partitioned table."""
    from django.apps import apps

    if using != "default" or sender is not list(apps.get_app_configs())[-1]:
        return
    from django.db import connection

    from core.partitioning import partitions_ensure

    partitions_ensure(connection)


class CoreConfig(AppConfig):
    default = True
    name = "core"
    verbose_name = "Platform core (audit trail)"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from core.fastpaths import install as install_fastpaths

        install_fastpaths()  # every process: the web, Celery, management commands, the tests (core/fastpaths.py)

        from core import schema  # noqa: F401  (registers OpenAPI extensions)

        connection_created.connect(_prepare_hot_statements, dispatch_uid="core.prepare_hot_statements")
        post_migrate.connect(_prepare_after_migrate, dispatch_uid="core.prepare_after_migrate")

        checks.register(check_staff_permissions)
        from django.conf import settings

        if settings.PRODUCTION:  # say at start which implementation each outside system uses
            import logging

            logging.getLogger("platform.startup").info(
                "external systems: " + ", ".join(f"{k}={v}" for k, v in settings.EXTERNAL_SYSTEMS.items())
            )
        # after the auth app's own handler has created the permissions (it is connected first: auth is listed
        # before the platform apps), whichever app's migrations ran
        post_migrate.connect(_sync_roles, dispatch_uid="core.roles_sync")
        post_migrate.connect(_partitions_ensure, dispatch_uid="core.partitions_ensure")


class PlatformAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the platform's site (staff 2FA when ADMIN_REQUIRE_2FA): core/admin_site.py."""

    default = False  # INSTALLED_APPS names it explicitly
    default_site = "core.admin_site.platform_admin_site"
