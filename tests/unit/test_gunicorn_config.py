"""deploy/gunicorn.conf.py: each worker, once it has loaded the application, imports the URLconf
and freezes what it loaded out of the garbage collector (a full collection over the
loaded modules took 50 ms, held inside a bet's transaction). Run in a child process: a frozen
heap would stay frozen for the rest of the test run."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import gc, runpy, sys
import django
django.setup()
config = runpy.run_path("deploy/gunicorn.conf.py")
before = gc.get_freeze_count(), "casino.urls" in sys.modules
config["post_worker_init"](None)
print(*before, gc.get_freeze_count(), "casino.urls" in sys.modules, config["preload_app"])
"""


def test_post_worker_init_imports_the_urlconf_and_freezes_the_loaded_heap(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="casino.settings", DATABASE_URL=f"sqlite:///{tmp_path / 'g.sqlite3'}")
    out = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    frozen_before, urls_before, frozen_after, urls_after, preload = out.stdout.split()
    assert (frozen_before, urls_before, urls_after, preload) == ("0", "False", "True", "False")
    assert int(frozen_after) > 50_000  # Django, the apps and the views: ~120,000 objects
