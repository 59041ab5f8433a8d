"""`python -m ddpcore`: see ddpcore/cli/commands.py."""

import sys

from .cli import main

sys.exit(main())
