"""The tests run on the thread's default context (GPGPU_BACKEND picks gl or vulkan), which
must be made before anything else: without one the whole run is skipped (exit 77, as the
C tests do when no context of that kind can be made)."""
import os

import numpy as np
import pytest

import gpgpu


def pytest_sessionstart(session):
    try:
        gpgpu.default_context()
    except (gpgpu.NoContextError, gpgpu.BackendUnavailableError) as e:
        pytest.exit(f"no GPU context: {e}", returncode=77)


@pytest.fixture(scope="session")
def ctx():
    return gpgpu.default_context()


@pytest.fixture
def rng(request):
    # One seed per test, the same on every run: failures repeat.
    return np.random.default_rng(abs(hash(request.node.nodeid)) % (1 << 32))


@pytest.fixture(scope="session")
def matrix_dir():
    d = os.environ.get("GPGPU_MATRIX_DIR",
                       os.path.join(os.path.dirname(__file__), "../../../shared/data/matrices"))
    if not os.path.isdir(d):
        pytest.skip(f"no shared matrices in {d}")
    return d
