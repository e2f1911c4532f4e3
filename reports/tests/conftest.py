"""The report tests play real rounds through the games platform (its test games and approved catalogue)."""

from tests.kit.platform import test_games  # noqa: F401  (autouse fixture)
