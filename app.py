"""StoryScope entry point: navigation over the pages, the store selector, shared sidebar."""

import logging
import os
import time

import streamlit as st

from ui.common import read_only_banner, store_sidebar

# STORYSCOPE_SCRIPT_TIMES=1 logs how long each script run took on the server, so a slow page
# switch can be split into the script's share and the browser's (benchmarks/bench_pages.py).
_script_start, _script_cpu = time.perf_counter(), time.thread_time()

st.set_page_config(page_title="StoryScope", layout="wide")
store_sidebar()

# url_path names are part of shared links (/film?film=...), so keep them stable. The page
# scripts live in ui/, not in a pages/ folder beside this script, so plain `streamlit run app.py`
# serves exactly these pages (Streamlit's legacy multipage mode reads only a pages/ folder).
PAGES = [
    st.Page("ui/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page("ui/film_page.py", title="Film", icon=":material/movie:", url_path="film"),
    st.Page(
        "ui/beliefs_page.py",
        title="Belief timelines",
        icon=":material/psychology:",
        url_path="beliefs",
    ),
    st.Page(
        "ui/questions_page.py", title="Questions", icon=":material/help:", url_path="questions"
    ),
    st.Page(
        "ui/verdicts_page.py",
        title="Verdicts",
        icon=":material/fact_check:",
        url_path="verdicts",
    ),
    st.Page(
        "ui/distributions_page.py",
        title="Distributions",
        icon=":material/bar_chart:",
        url_path="distributions",
    ),
    st.Page(
        "ui/plottree_page.py",
        title="PlotTree",
        icon=":material/account_tree:",
        url_path="plottree",
    ),
    st.Page("ui/qlab_page.py", title="Question Lab", icon=":material/science:", url_path="qlab"),
    st.Page("ui/runs_page.py", title="Runs", icon=":material/history:", url_path="runs"),
]

page = st.navigation(PAGES)
read_only_banner()  # on every page, above its title
try:
    page.run()
finally:  # also when the page stops early (st.stop) or asks for a rerun
    if os.environ.get("STORYSCOPE_SCRIPT_TIMES"):
        logging.getLogger("storyscope.app").warning(
            "script run %s %.3f s wall %.3f s cpu",
            page.url_path or "overview",
            time.perf_counter() - _script_start,
            time.thread_time() - _script_cpu,
        )
