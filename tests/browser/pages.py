"""What every page test needs: numbers read from the page, the URL hash once written, and a watch on misbehaviour."""

from __future__ import annotations

from paths import FIXTURES


def value(page, testid: str) -> float:
    """The raw number behind a shown value (`data-value`): never parsed from display text."""
    return float(page.get_attribute(f"[data-testid={testid}]", "data-value"))


class PageWatch:
    """Collects what the page did that it should not: console errors, failed or foreign requests."""

    def __init__(self, page, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.console_errors: list[str] = []
        self.foreign_requests: list[str] = []
        self.failed_requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.console_errors.append(str(e)))
        page.on("request", self._on_request)
        page.on("requestfailed", lambda r: self.failed_requests.append(r.url))

    def _on_request(self, request) -> None:
        url = request.url
        if not (url.startswith(self.origin) or url.startswith("data:") or url.startswith("blob:")):
            self.foreign_requests.append(url)

    def assert_clean(self) -> None:
        assert self.foreign_requests == []
        assert self.failed_requests == []
        assert self.console_errors == []
        assert not self.page.is_visible("[data-testid=errors]")


def load_example_traces(page) -> None:
    """Open Your traces and load the bundled example, as a user would (it is fetched from the site like any file)."""
    page.click("[data-testid=view-traces]")
    page.click("[data-testid=trace-example]")
    page.wait_for_selector("[data-testid=trace-straggler]")


def assert_page_works(page, watch, step_ms: str) -> None:
    """The page as a user meets it: the One step view's step time, the bundled example and picked files read,
    and nothing wrong on the way (`watch`: console errors, failed or outside requests)."""
    page.wait_for_selector("html.ready", timeout=60_000)
    assert page.get_attribute("[data-testid=step-time]", "data-value") == step_ms
    load_example_traces(page)
    read_picked_traces(page)
    watch.assert_clean()


def traces_written(page, shown: str = "[data-testid=trace-straggler]", timeout: float = 60_000) -> None:
    """Wait until picked files' result is written whole: `shown` is on the page and the results section is no longer
    `aria-busy`. The page writes a result a region at a time, so the first region is no sign of the others."""
    page.wait_for_function(
        "(shown) => document.querySelector(shown)"
        " && document.querySelector('[data-testid=trace-results]').ariaBusy === 'false'",
        arg=shown,
        timeout=timeout,
    )


def read_picked_traces(page) -> None:
    """Pick three ranks of the 4-rank example as a user would: the page's worker (its own Pyodide) reads them.
    Three, so that the result cannot be mistaken for the bundled example's four."""
    fixtures = FIXTURES / "ddp4"
    page.click("[data-testid=view-traces]")
    page.set_input_files("[data-testid=trace-files]", [str(fixtures / f"rank{r}.jsonl.gz") for r in (0, 2, 3)])
    page.wait_for_function(
        "document.querySelectorAll('[data-testid=trace-rank]').length === 3 "
        "&& !document.querySelector('[data-testid=trace-progress-bar]')",
        timeout=120_000,
    )
    traces_written(page)
    assert page.get_attribute("[data-testid=trace-straggler]", "data-value") == "2"


def expect_hash(
    page, *, exact: str | None = None, contains: str | None = None, lacks: str | None = None, timeout: float = 5_000
) -> None:
    """Fail unless the URL hash comes to equal `exact` (or contain `contains`, or lack `lacks`): the page writes it
    in a task of its own after the DOM update, and a change within a view once the controls rest
    (`app.LINK_AFTER_S`), so it is awaited; the failure says what the hash was instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    checks = {
        "exact": ("h => location.hash === h", exact),
        "to contain": ("s => location.hash.includes(s)", contains),
        "to lack": ("s => !location.hash.includes(s)", lacks),
    }
    expected, (check, arg) = next((k, v) for k, v in checks.items() if v[1] is not None)
    try:
        page.wait_for_function(check, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        actual = page.evaluate("location.hash")
        raise AssertionError(f"URL hash {actual!r}, expected {expected} {arg!r}") from None


def commit_threshold(page, text: str) -> None:
    """Type `text` into the threshold field and commit it (Enter), then wait until the verdict is written: the
    page judges it in steps, and the field is `aria-busy` from the commit until its last change is written."""
    field = "[data-testid=alert-threshold]"
    page.fill(field, text)
    page.press(field, "Enter")
    page.wait_for_function("document.querySelector('[data-testid=alert-threshold]').ariaBusy === 'false'")
