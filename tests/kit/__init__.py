"""The test kit: what tests share, defined once (``tests/test_house_rules_tests.py`` fails on a copy, on an import of
a ``conftest.py`` and on production code importing this package).

- ``accounts``: personas (``make_player``, ``make_staff``, ``token_for``, ``login_session_for``, registration data)
- ``clients``: ``client_for(player or user)``, ``staff_api_client(*perms, role=, superuser=)``, ``admin_session()``
- ``money``: ``czk(koruny)`` Money, ``kc(minor)`` Czech text, ``api_money(minor)`` JSON amount, ``prague(...)`` instants
- ``refusals``: ``refused(call, ErrorDef)``, ``refusal_of(fn, ...)``, ``refused_response(r, ErrorDef, http=)``
- ``wallet``: ``fund(player, minor or Money)``, bank accounts, sandbox deposits, ``ledger_clean()``
- ``games``, ``platform``: approved versions, bets as the API takes them, funded players, rounds through the API
- ``limits``, ``aml``, ``backoffice``, ``jackpots``, ``providers``, ``simulator``: each app's shared helpers
- ``production``: the production environment, ``settings_started(env, expr)`` (the settings read in-process)
- ``servers``, ``oidc``, ``aisg``, ``regulator``: local servers and certificates standing in for outside parties
- ``plugin``: the pytest plugin (game versions approved per database test, the ``staff_client`` fixture)
"""
