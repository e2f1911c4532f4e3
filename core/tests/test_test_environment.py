"""The test environment reaches the settings (config/pytest_env.py, loaded before pytest-django imports them): a
test user's password is hashed with the fast hasher, not with Argon2 (0.1-0.5 s a hash)."""


def test_the_settings_see_the_test_environment(settings):
    assert settings.TESTING is True
    assert settings.PASSWORD_HASHERS[0] == "django.contrib.auth.hashers.MD5PasswordHasher"
