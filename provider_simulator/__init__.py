"""The provider simulator: a sandbox remote game server of an outside studio.

It plays with the platform's wallet through the seamless-wallet API exactly as a studio's server would
(``/work/briefs/providers-contract.md``, docs/providers.md): it signs every call, keeps its own journal of what it
sent and what it was answered, serves the launch URL's page with a small slot, and serves the two endpoints the
platform calls (``round-cancelled``, ``round-report``). On request it misbehaves as real servers do (duplicates,
calls out of order, lost answers, forged signatures, stale timestamps), so the platform's defences can be driven
over real HTTP.

It imports nothing of the platform (an import-linter contract): the wire is all it shares.
"""
