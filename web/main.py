"""The page's entry point: put the app's bytecode bundle on the path, and start the page (web/shell/page.py)."""

import os
import sys

sys.path.insert(0, os.path.abspath("ddpapp.zip"))  # the app's bundle, imported in place (zipimport)

from shell import page

page.start()
