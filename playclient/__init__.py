"""The reference player web client at ``/play/``: one page and static ES modules that use only the public REST API
(docs/playclient.md)."""
