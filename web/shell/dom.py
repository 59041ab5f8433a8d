"""Small DOM helpers: errors shown in the page, guarded callbacks, background tasks, and writing a screen."""

import asyncio
import traceback

from ddpview.markup import patch_text
from ddpview.views import IN_PLACE, PATCHED
from pyscript import document, window
from pyscript.ffi import create_proxy

BACKGROUND: set = set()
"""Tasks under way: held here so that the event loop's weak references do not let them be collected mid-run."""


def by_id(name):
    return document.getElementById(name)


def all_of(selector):
    return list(document.querySelectorAll(selector))


def now_s():
    return window.performance.now() / 1000.0


def show_error(details):
    """An unexpected error: its last line for the user, the traceback folded beneath it."""
    box = by_id("errors")
    entry = document.createElement("details")
    summary = document.createElement("summary")
    summary.textContent = details.strip().splitlines()[-1]
    pre = document.createElement("pre")
    pre.textContent = details
    entry.append(summary, pre)
    box.append(entry)
    box.hidden = False


def in_background(coroutine):
    """Run a coroutine after the event: what the event carries must be read before, while it is dispatched."""

    async def run():
        try:
            await coroutine
        except Exception:
            show_error(traceback.format_exc())

    task = asyncio.ensure_future(run())
    BACKGROUND.add(task)
    task.add_done_callback(BACKGROUND.discard)


SLICE_S = 0.008
"""Work in steps holds the page's thread this long at most before giving it back (plus one step): a task of 50 ms
is a long task, and a machine half as fast as this one must stay under it."""


FRAME_S = 0.02
"""How long the page's thread is given back after a step that yields NEXT_FRAME: longer than a frame at 60 Hz, so
that the browser lays out and paints what that step wrote before the next step writes more."""
NEXT_FRAME = "next frame"
"""What a step yields when what it wrote should be laid out on its own (`stepped`): the style and layout of all of a
large read's regions in one frame took 85 ms on a machine half as fast as this one."""


async def stepped(steps):
    """Work in steps (a generator that yields None, or NEXT_FRAME, and returns its result, e.g.
    ddpcore.analysis.verdict.judge_in_steps) run to its end, the page's thread given back every SLICE_S, and for
    FRAME_S after a NEXT_FRAME while the page is seen (a hidden page lays nothing out, and its timers are slowed to
    one a second)."""
    start = now_s()
    while True:
        try:
            given = next(steps)
        except StopIteration as end:
            return end.value
        if given == NEXT_FRAME and str(document.visibilityState) == "visible":
            await asyncio.sleep(FRAME_S)
            start = now_s()
        elif now_s() - start >= SLICE_S:
            await asyncio.sleep(0)
            start = now_s()


def guarded(handler):
    """Every DOM callback reports Python errors in the page, not only in the console."""

    def run(*args):
        try:
            handler(*args)
        except Exception:
            show_error(traceback.format_exc())

    return create_proxy(run)


SAME_ITEM = ("data-ranks", "data-rank-page", "data-rank")
"""What tells an item from the others of its `data-testid` (a map row, a page button)."""


def roved(event, items, current):
    """In a group of one Tab stop (the view tabs, the map's rows): the item the key moves to from `current`, made
    the group's stop and focused; None for any other key."""
    from ddpview.app import tab_after

    index = tab_after(str(event.key), items.index(current), len(items)) if current in items else None
    if index is None:
        return None
    event.preventDefault()
    current.tabIndex, items[index].tabIndex = -1, 0
    items[index].focus()
    return items[index]


def focus_near(element):
    """Focus the element's nearest enabled sibling (after it, else before), e.g. "Previous" once "Next" is disabled
    at the end: the focus never falls to the page's body."""
    if not element:
        return
    for step in ("nextElementSibling", "previousElementSibling"):
        other = getattr(element, step)
        while other:
            if not other.matches(":disabled") and other.tabIndex >= 0:
                other.focus()
                return
            other = getattr(other, step)


def translate_page(lang):
    """Every fixed text of the page (`data-i18n`, `data-i18n-attr`) in `lang`; the views follow on the next render."""
    from ddpview import i18n

    document.documentElement.lang = lang
    for element in document.querySelectorAll("[data-i18n]"):
        element.innerHTML = i18n.t(str(element.getAttribute("data-i18n")), lang)
    for element in document.querySelectorAll("[data-i18n-attr]"):
        attr, key = str(element.getAttribute("data-i18n-attr")).split(":", 1)
        element.setAttribute(attr, i18n.t(key, lang))
    by_id("lang").value = lang


class RegionWriter:
    """Writes regions' markup by id: in place when a region keeps its shape (ddpview.markup.patches), else whole."""

    def __init__(self, shown, elements=None):
        self.elements = dict(elements or {})
        self.shown = {name: markup for name, markup in shown.items() if name in PATCHED}

    def element(self, name):
        if name not in self.elements:
            self.elements[name] = by_id(name)
        return self.elements[name]

    def detached(self):
        """A writer of copies of the One step view's regions, out of the document, showing what these show: what the
        page's idle warming writes there runs an input's every step (the patch, the call to JavaScript, the HTML
        parser) and changes nothing on the page."""
        return RegionWriter(self.shown, {name: self.element(name).cloneNode(True) for name in IN_PLACE})

    def write_region(self, name, markup):
        """New markup for a region: in place when it keeps its shape (markup.patches), else whole; then the focus
        stays on the control it was on (the same `data-testid`), or the nearest one enabled, rather than falling to
        the page's body."""
        element = self.element(name)
        before = self.shown.get(name)
        if name in PATCHED:
            self.shown[name] = markup
        if before is not None:
            changes = patch_text(before, markup)
            if changes == "" or (changes is not None and window.ddpcorePatch(element, changes)):
                return
        active = document.activeElement
        testid = active and element.contains(active) and active.getAttribute("data-testid")
        same = "".join(f"[{a}='{active.getAttribute(a)}']" for a in SAME_ITEM if testid and active.hasAttribute(a))
        element.innerHTML = markup
        if testid:
            again = element.querySelector(f"[data-testid='{testid}']{same}") or element.querySelector(
                f"[data-testid='{testid}']"
            )
            if again and again.matches(":disabled"):
                focus_near(again)
            elif again:
                again.focus()


class Writer(RegionWriter):
    """Applies ddpview.app's changes: markup by id, control values by slot, texts, attributes, flags, the view."""

    def __init__(self, slot_of, shown):
        super().__init__(shown)
        self.controls: dict = {}
        for element in document.querySelectorAll("[data-key]"):
            self.controls.setdefault(slot_of(element), []).append(element)
        self.tabs = list(document.querySelectorAll("[role=tab]"))
        self.by_view = [(e, str(e.getAttribute("data-view-panel"))) for e in all_of("[data-view-panel]")]
        self.by_mode = [(e, str(e.getAttribute("data-show-mode"))) for e in all_of("[data-show-mode]")]

    def write(self, kind, name, value):
        if kind == "region":
            self.write_region(name, value)
        elif kind == "value":
            for element in self.controls.get(name, ()):
                if str(element.type) == "checkbox":
                    element.checked = value == "1"
                else:
                    element.value = value
        elif kind == "text":
            self.element(name).textContent = value
        elif kind == "attr":
            for attr, text in value.items():
                self.element(name).setAttribute(attr, text)
        elif kind == "flag":
            element = self.element(name)
            for prop, on in value.items():
                leaving = prop == "disabled" and on and element == document.activeElement
                setattr(element, prop, on)
                if leaving:
                    focus_near(element)
        else:
            self.show_view(*value)

    def move_playhead(self, x):
        """The animation's playhead moved to x, alone: between two exchanges nothing else on the page changes. The
        timeline no longer shows its last markup, so its next update is written whole."""
        line = by_id("playhead")
        line.setAttribute("x1", f"{x:.2f}")
        line.setAttribute("x2", f"{x:.2f}")
        line.classList.remove("hidden")
        self.shown.pop("timeline-view", None)

    def show_view(self, view, mode):
        for tab in self.tabs:
            selected = str(tab.getAttribute("data-view")) == view
            tab.setAttribute("aria-selected", "true" if selected else "false")
            tab.tabIndex = 0 if selected else -1
        for element, name in self.by_view:
            element.hidden = name != view
        for element, name in self.by_mode:
            element.hidden = name != mode
