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
def matrix():
    """matrix(ROLE): the path of the MatrixMarket file that stands for a role (SPD, GENERAL,
    ...), real or generated, which tests/matrices/matrices.py names in GPGPU_MATRIX_<ROLE>:
    meson test runs pytest through it (docs/TESTING.md, "Matrices")."""
    if not os.environ.get("GPGPU_MATRIX_DIR"):
        pytest.skip("GPGPU_MATRIX_DIR is not set: run the suite through meson test "
                    "(tests/matrices/matrices.py sets it)")
    return lambda role: os.environ["GPGPU_MATRIX_" + role]
