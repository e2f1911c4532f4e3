import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Every shipped game imported now, in the worker before its threads take requests (not by the first round's
# request, which made the first rounds of a fresh or recycled worker 0.5 s slower). The registry's lock keeps a
# lazy load correct too (games/engine/registry.py).
from games.engine.registry import load_catalogue  # noqa: E402  (needs the app registry set up above)

load_catalogue()
