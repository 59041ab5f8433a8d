"""Where the tests find the repository and their fixtures, wherever the test file sits."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
WEB = ROOT / "web"
CORE = ROOT / "ddpcore"
