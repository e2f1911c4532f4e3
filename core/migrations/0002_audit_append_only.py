from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION core_auditevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'core_auditevent is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER core_auditevent_no_update_delete
    BEFORE UPDATE OR DELETE ON core_auditevent
    FOR EACH ROW EXECUTE FUNCTION core_auditevent_append_only();
-- TRUNCATE is not trapped: the test runner's flush uses it, and in production the
-- application role does not own the table (so it cannot TRUNCATE it anyway).
"""

REVERSE = """
DROP TRIGGER IF EXISTS core_auditevent_no_update_delete ON core_auditevent;
DROP FUNCTION IF EXISTS core_auditevent_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
