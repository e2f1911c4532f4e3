"""The report tests play real rounds through the games platform (its test games and approved catalogue)."""
from games.tests.platform.conftest import test_games  # noqa: F401  (autouse fixture)
