import io

import pytest

from accounts.models import BarredPerson, Player, SandboxPopulationRecord


@pytest.mark.django_db
def test_the_demo_data_load_twice_without_duplicating_anything():
    from accounts.demo import seed

    seed(io.StringIO())
    counts = (Player.objects.count(), SandboxPopulationRecord.objects.count(), BarredPerson.objects.count())
    out = io.StringIO()
    seed(out)
    assert (Player.objects.count(), SandboxPopulationRecord.objects.count(), BarredPerson.objects.count()) == counts
    # demo_identifying: a doubtful identification; demo_pep: a screening hit on the sandbox PEP list
    assert counts[0] == 6 and "demo_active" in out.getvalue()
    assert Player.objects.get(user__username="demo_excluded").personal.birth_number
