"""The bench (`python build.py bench`): see __main__.py for its parts."""
