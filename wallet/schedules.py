"""Periodic wallet jobs (merged by config.schedules into the beat schedule)."""

BEAT_SCHEDULE = {
    # Deposit expiry, withdrawal/payout sending and retries, GP §5(2)e/§5(13) branch->post, GP §10(3) holds,
    # GP §7(7) overdue debts, GP §5(11) full accounts past their payment-method term (flagged for staff): all
    # deadlines are row fields; the sweeper is safe to run twice.
    "wallet.sweep": {"task": "wallet.sweep", "schedule": 300.0},
}
