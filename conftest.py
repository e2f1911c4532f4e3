"""Project-wide pytest setup. The environment (TESTING, DATABASE_URL or the embedded PostgreSQL) is set by
``config/pytest_env.py``, loaded before the settings (pyproject's addopts)."""

# Real money needs a game version approved in the game plan (GP §13(6)); every test with the database gets the
# current versions approved as test data (games/testing.py says how and why).
pytest_plugins = ("games.testing",)
