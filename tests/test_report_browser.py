"""Reports in a real headless browser: Debian's Chromium opens a report from disk with the network
cut off; every chart must render (each plotly div holds an svg.main-svg with its traces), the
console must stay free of errors (and no script may open a dialog), no request may leave the
file, and a full-page screenshot is saved under pytest's tmp path (also copied to
$UNOSTATS_SCREENSHOTS when set) for people to look at.

The browser is driven over the Chrome DevTools protocol on ``--remote-debugging-pipe`` (file
descriptors 3 and 4, NUL-terminated JSON), so nothing but the ``chromium`` package is needed:
no webdriver, no browser download. Skipped, with the reason, when Chromium is not installed; CI
(.ci/run) installs it, so there it runs.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from unostats.report.build import build_index, build_report

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium() -> str | None:
    env = os.environ.get("UNOSTATS_CHROMIUM")
    if env:
        return env
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = find_chromium()
# Every browser test file's mark (they import it).
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium; .ci/run installs it), so the "
           "headless-browser check of the report cannot run")
pytestmark = NEEDS_CHROMIUM


class CDPError(RuntimeError):
    pass


class Browser:
    """Headless Chromium with one page, driven over --remote-debugging-pipe."""

    def __init__(self, executable: str, *, width: int = 1400, height: int = 1000):
        self.profile = tempfile.mkdtemp(prefix="unostats-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_pipe_fds() -> None:  # runs in the child: the protocol uses fds 3 and 4
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [
            executable, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--remote-debugging-pipe",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--no-first-run",
            "--no-default-browser-check", "--mute-audio", "--hide-scrollbars",
            # network off: every host resolves nowhere and any proxied request goes to a dead port
            "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
            f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=wire_pipe_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None

    # --- protocol ---
    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _read_message(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CDPError("Chromium closed the DevTools pipe (did it crash?)")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, *, page: bool = True,
             timeout: float = 30.0) -> dict:
        cid = self._send(method, params, self.session if page else None)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read_message(max(0.0, deadline - time.monotonic()))
            if msg is None:
                raise CDPError(f"no answer to {method} within {timeout} s")
            if msg.get("id") == cid:
                if "error" in msg:
                    raise CDPError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def pump(self, seconds: float) -> None:
        """Collect events for a while."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            msg = self._read_message(left)
            if msg is not None and "method" in msg:
                self.events.append(msg)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        seen = len(self.events)
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events[seen:]:
                if ev["method"] == method:
                    return ev
            seen = len(self.events)
            msg = self._read_message(max(0.0, deadline - time.monotonic()))
            if msg is None:
                raise CDPError(f"no {method} within {timeout} s")
            if "method" in msg:
                self.events.append(msg)

    # --- page ---
    def open_page(self) -> None:
        # A Chromium's first target may wait for its start (its caches built on a fresh
        # machine, under the test run's load: 30 s was once not enough in CI).
        target = self.call("Target.createTarget", {"url": "about:blank"}, page=False,
                           timeout=120.0)
        attached = self.call("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, page=False)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def navigate(self, url: str, timeout: float = 60.0) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", timeout)

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise CDPError(f"evaluation failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: Path, *, width: int = 1400, clip: tuple[int, int] | None = None
                   ) -> Path:
        """Full page (or the vertical band clip=(top, height)) as PNG."""
        metrics = self.call("Page.getLayoutMetrics")
        height = int(metrics["cssContentSize"]["height"])
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.pump(1.0)  # let plotly's responsive charts settle at the new size
        params = {"format": "png", "captureBeyondViewport": True}
        if clip is not None:
            top, h = clip
            params["clip"] = {"x": 0, "y": top, "width": width, "height": min(h, height - top),
                              "scale": 1}
        data = self.call("Page.captureScreenshot", params, timeout=60)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    # --- diagnostics ---
    def console_problems(self) -> list[str]:
        problems = []
        for ev in self.events:
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                problems.append(f"exception: {d.get('exception', {}).get('description') or d}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
                problems.append(f"console.{p['type']}: {args}")
            elif m == "Page.javascriptDialogOpening":
                problems.append(f"dialog ({p.get('type')}): {p.get('message')}")
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                problems.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return problems

    def requested_urls(self) -> list[str]:
        return [ev["params"]["request"]["url"] for ev in self.events
                if ev["method"] == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)


CHART_STATE_JS = """
Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => ({
  id: d.id,
  svg: d.querySelectorAll('svg.main-svg').length,
  traces: d.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length,
  title: (d.querySelector('.gtitle') || {}).textContent || '',
  width: d.getBoundingClientRect().width,
  height: d.getBoundingClientRect().height,
}))
"""


def wait_for_charts(browser: Browser, expected: int, timeout: float = 60.0,
                    state_js: str = CHART_STATE_JS) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        charts = browser.evaluate(state_js)
        if len(charts) >= expected and all(c["svg"] > 0 and c["traces"] > 0 for c in charts):
            return charts
        if time.monotonic() > deadline:
            return charts
        browser.pump(0.25)


def drawn_charts(browser: Browser, report: Path,
                 state_js: str = CHART_STATE_JS) -> dict[str, dict]:
    """Opens ``report`` and waits for its charts: every chart drawn (an svg and traces), id ->
    its state."""
    expected = report.read_text().count('class="plotly-graph-div"')
    browser.navigate(report.resolve().as_uri())
    charts = wait_for_charts(browser, expected, state_js=state_js)
    assert len(charts) == expected
    not_drawn = [c["id"] for c in charts if c["svg"] == 0 or c["traces"] == 0]
    assert not not_drawn, f"charts without an svg.main-svg or traces: {not_drawn}"
    return {c["id"]: c for c in charts}


# --- Tests -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    b = Browser(CHROMIUM)
    try:
        b.open_page()
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    from test_report import make_db  # the content tests' small two-run database

    folder = tmp_path_factory.mktemp("browser")
    db, runs = make_db(folder / "r.duckdb")
    compare = build_report(db_path=db, run_ids=[runs["compare"]], out=folder / "reports" /
                           "compare.html")
    ablation = build_report(db_path=db, run_ids=[runs["ablation"]], out=folder / "reports" /
                            "ablation.html")
    return {"compare": compare, "ablation": ablation, "index": build_index(folder / "reports")}


@pytest.mark.parametrize("name", ["compare", "ablation"])
def test_report_renders_offline_without_console_errors(browser, reports, name, tmp_path):
    path = reports[name]
    charts = list(drawn_charts(browser, path).values())
    assert len(charts) >= 13
    assert all(c["width"] > 600 and c["height"] > 150 for c in charts), charts
    assert all(c["title"].strip() for c in charts), [c["id"] for c in charts if not c["title"]]
    if name == "ablation":
        # the rule-effect chart, and the ablation variants listed in the overlay charts'
        # legends but drawn only on demand (a legend click)
        assert "fig-ablation" in {c["id"] for c in charts}
        legend = browser.evaluate("""(() => {
          const d = document.getElementById('fig-round-turns-hist');
          return [d.querySelectorAll('.legend .traces').length,
                  d.querySelectorAll('.scatterlayer .trace').length];
        })()""")
        assert legend == [3, 1], legend
    assert browser.evaluate("typeof Plotly") == "object"

    shot = finish_page(browser, tmp_path / f"{name}.png")
    print(f"screenshot: {shot}")


def finish_page(browser: Browser, shot_path: Path) -> Path:
    """The end of a page's check: a clean console, nothing asked of the network, and a
    screenshot (kept in $UNOSTATS_SCREENSHOTS too, e.g. a CI artefact folder)."""
    browser.pump(0.5)
    assert browser.console_problems() == []
    leaving = [u for u in browser.requested_urls()
               if not u.startswith(("file:", "data:", "about:"))]
    assert leaving == [], f"the page tried to load from the network: {leaving}"
    shot = browser.screenshot(shot_path)
    assert shot.stat().st_size > 50_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("UNOSTATS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    return shot


def test_index_links_open(browser, reports):
    index = reports["index"]
    browser.navigate(index.resolve().as_uri())
    links = browser.evaluate(
        "Array.from(document.querySelectorAll('#reports a')).map(a => a.getAttribute('href'))")
    assert sorted(links) == ["ablation.html", "compare.html"]
    assert browser.console_problems() == []
    browser.navigate((index.parent / links[0]).resolve().as_uri())
    assert browser.evaluate("document.querySelectorAll('.plotly-graph-div').length") >= 13


def test_scenario_download_link_holds_the_file(browser, reports):
    browser.navigate(reports["compare"].resolve().as_uri())
    text = browser.evaluate("""
      (async () => {
        const a = document.querySelector('a[id^="download-scenario-"]');
        const r = await fetch(a.href);
        return [a.getAttribute('download'), await r.text()];
      })()""")
    name, body = text
    assert name.endswith(".yaml")
    assert body.startswith("name: ") and "variants:" in body
