"""`python -m ddpcore`: see ddpcore/cli.py."""

import sys

from .cli import main

sys.exit(main())
