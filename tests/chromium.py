"""Headless Chromium driven over the Chrome DevTools protocol on ``--remote-debugging-pipe``
(file descriptors 3 and 4, NUL-terminated JSON), so nothing but the ``chromium`` package is
needed: no webdriver, no browser download. conftest.py's ``browser`` fixture gives a test one
page; the page's network is cut off.
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

# A chart's state in the page; TRACES is the selector of what counts as a drawn trace.
CHART_STATE_JS = """
Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => ({
  id: d.id,
  svg: d.querySelectorAll('svg.main-svg').length,
  traces: d.querySelectorAll('TRACES').length,
  title: (d.querySelector('.gtitle') || {}).textContent || '',
  width: d.getBoundingClientRect().width,
  height: d.getBoundingClientRect().height,
}))
"""

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


CHROMIUM = find_chromium()  # None: not installed, the browser tests skip


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

    # --- a report's page ---
    def drawn_charts(self, report: Path, *, heat_maps: bool = False) -> dict[str, dict]:
        """Opens ``report`` and waits for its charts: every chart drawn (an svg and traces; with
        ``heat_maps``, a heat map's image counts as a trace), id -> its state."""
        traces = ".scatterlayer .trace, .barlayer .trace" + (", .heatmaplayer .hm" if heat_maps
                                                             else "")
        expected = report.read_text().count('class="plotly-graph-div"')
        self.navigate(report.resolve().as_uri())
        charts = self._wait_for_charts(CHART_STATE_JS.replace("TRACES", traces), expected)
        assert len(charts) == expected
        not_drawn = [c["id"] for c in charts if c["svg"] == 0 or c["traces"] == 0]
        assert not not_drawn, f"charts without an svg.main-svg or traces: {not_drawn}"
        return {c["id"]: c for c in charts}

    def _wait_for_charts(self, state_js: str, expected: int, timeout: float = 60.0
                         ) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            charts = self.evaluate(state_js)
            if len(charts) >= expected and all(c["svg"] > 0 and c["traces"] > 0 for c in charts):
                return charts
            if time.monotonic() > deadline:
                return charts
            self.pump(0.25)

    def finish_page(self, shot_path: Path) -> Path:
        """The end of a page's check: a clean console, nothing asked of the network, and a
        screenshot (kept in $UNOSTATS_SCREENSHOTS too, e.g. a CI artefact folder)."""
        self.pump(0.5)
        assert self.console_problems() == []
        leaving = [u for u in self.requested_urls()
                   if not u.startswith(("file:", "data:", "about:"))]
        assert leaving == [], f"the page tried to load from the network: {leaving}"
        shot = self.screenshot(shot_path)
        assert shot.stat().st_size > 50_000
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        keep = os.environ.get("UNOSTATS_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)
        return shot

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
