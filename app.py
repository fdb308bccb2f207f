"""StoryScope entry point: navigation over the pages, the store selector, shared sidebar."""

import streamlit as st

from pages.common import store_sidebar

st.set_page_config(page_title="StoryScope", layout="wide")
store_sidebar()

# url_path names are part of shared links (?film=...), so keep them stable.
PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page("pages/film.py", title="Film", icon=":material/movie:", url_path="film"),
    st.Page("pages/beliefs.py", title="Belief timelines", icon=":material/psychology:", url_path="beliefs"),
    st.Page("pages/questions.py", title="Questions", icon=":material/help:", url_path="questions"),
    st.Page("pages/verdicts.py", title="Verdicts", icon=":material/fact_check:", url_path="verdicts"),
    st.Page("pages/distributions.py", title="Distributions", icon=":material/bar_chart:",
            url_path="distributions"),
    st.Page("pages/plottree.py", title="PlotTree", icon=":material/account_tree:", url_path="plottree"),
    st.Page("pages/qlab.py", title="Question Lab", icon=":material/science:", url_path="qlab"),
    st.Page("pages/runs.py", title="Runs", icon=":material/history:", url_path="runs"),
]

st.navigation(PAGES).run()
