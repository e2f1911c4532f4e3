"""AML models (see aml/apps.py)."""
