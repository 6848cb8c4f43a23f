"""The CuPy stand-in (tests/support/fake_backend.py) registered as backend "fake" for a test that
asks for it (`pytestmark = pytest.mark.usefixtures("fake_backend")`)."""
import pytest
from fake_backend import BACKEND

from s2s.backends import arrays


@pytest.fixture
def fake_backend():
    arrays.register(BACKEND)
    yield
    arrays.unregister("fake")
