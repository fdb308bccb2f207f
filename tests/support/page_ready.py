"""When a Streamlit page in the browser is ready (benchmarks/bench_pages.py, browser tests): its
script run is over, by the server's own word, and nothing is still a loading skeleton."""

from __future__ import annotations

import time


class ScriptRuns:
    """Counts the server's "script finished" messages on the page's websocket.

    The one sure sign that a script run is over: the status widget appears only after a run
    has lasted 500 ms (Streamlit's frontend delays it), so "no status widget" alone passed
    while a short run was still sending elements, and a page could be timed before its last
    chart arrived.
    """

    def __init__(self, page) -> None:
        self.finished = 0
        page.on("websocket", lambda socket: socket.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if isinstance(payload, str):
            return
        message = ForwardMsg.FromString(payload)
        # a whole script run, not a fragment's (the Runs page polls in a fragment) and not one
        # ended early by st.rerun (the rerun that follows is the one shown)
        if message.WhichOneof("type") == "script_finished" and (
            message.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
        ):
            self.finished += 1

    def wait_past(self, page, seen: int, timeout_s: float = 120.0) -> None:
        """Wait (dispatching the page's events) until a run finished after `seen` runs."""
        deadline = time.monotonic() + timeout_s
        while self.finished <= seen:
            if time.monotonic() > deadline:
                raise TimeoutError("the script run did not finish")
            page.wait_for_timeout(10)


def settled(page, title: str, runs: ScriptRuns, seen: int) -> None:
    """Until the run started after `seen` finished runs is over and the page is drawn."""
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=120000)
    runs.wait_past(page, seen)
    # the script run being over is not the page being drawn: elements whose code loads lazily
    # (tables, charts, page links) show as skeletons until the browser has drawn them
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=120000
    )
