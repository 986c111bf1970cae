"""The tests run against the installed package (the wheel), never the source tree."""
import os
from pathlib import Path

import pytest

import contact_fmu

ROOT = Path(__file__).resolve().parents[2]


def pytest_report_header(config):
    return f"contact_fmu {contact_fmu.__version__} from {Path(contact_fmu.__file__).parent}"


@pytest.fixture(scope="session")
def examples() -> Path:
    """The repository's examples/ (CONTACT_FMU_EXAMPLES to use another copy)."""
    return Path(os.environ.get("CONTACT_FMU_EXAMPLES", ROOT / "examples"))
