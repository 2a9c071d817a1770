"""docs/PYTHON.md's python blocks, run one after the other as one program in a fresh
interpreter: the tutorial shows what the package does, and draws its picture."""
import os
import re
import subprocess
import sys

import pytest

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../docs/PYTHON.md")


def test_tutorial_runs(tmp_path):
    pytest.importorskip("scipy.sparse")
    pytest.importorskip("moderngl")
    blocks = re.findall(r"^```python\n(.*?)^```", open(DOC).read(), flags=re.S | re.M)
    assert len(blocks) >= 6
    script = tmp_path / "tutorial.py"
    script.write_text("\n".join(blocks))
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "python_tutorial.png").stat().st_size > 10000
