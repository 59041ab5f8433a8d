"""Pure-Python drawing of the ddpcore page: view state in, SVG/HTML strings out."""
