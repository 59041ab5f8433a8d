"""Pure-Python drawing of the ddpcore page: view state in, SVG/HTML strings out, in rooms that import only those
before them (markup <- i18n <- state <- views <- reading <- app <- warmup), each through its front door:

- `markup`: escaped SVG and HTML strings, and the patches that change a region in place;
- `i18n`: the page's English and French, numbers as each language writes them, the facts the prose quotes;
- `state`: what a link holds, read from and written to the URL's hash;
- `views`: the One step view, the cluster view and Your traces, drawn;
- `reading`: the progress of a read, and the worker's measurement as the page receives it;
- `app`: the page's model, how each event changes it, and what it shows;
- `warmup`: the default view drawn at build time, and what the page draws once idle.

The DOM shell (web/shell) only reads events into `app` and writes what `app.screen` returns (docs/architecture.md).
"""

__all__ = ["app", "i18n", "markup", "reading", "state", "views", "warmup"]
