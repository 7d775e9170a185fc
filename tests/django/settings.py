# Django's stock MySQL backend settings for its own test suite, as Django's
# documentation gives them for running its tests on MySQL/MariaDB
# (docs/internals/contributing/writing-code/unit-tests.txt). The server's port
# comes from tests/django/run.sh; nothing else differs between the two servers.
import os

_PORT = os.environ["LARCH_DJANGO_PORT"]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.mysql",
        "HOST": "127.0.0.1",
        "PORT": _PORT,
        "USER": "root",
        "PASSWORD": "",
    },
    "other": {
        "ENGINE": "django.db.backends.mysql",
        "HOST": "127.0.0.1",
        "PORT": _PORT,
        "USER": "root",
        "PASSWORD": "",
    },
}

SECRET_KEY = "django_tests_secret_key"

# A fast hasher: the tests create many users.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

# As in Django's tests/test_sqlite.py.
USE_TZ = False
