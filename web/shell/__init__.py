"""The page's DOM shell: event wiring and writing ddpview's screen into the document (runs in the browser only)."""
