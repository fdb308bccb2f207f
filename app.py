"""StoryScope entry point: navigation over the pages, the store selector, shared sidebar."""

import streamlit as st

from pages.common import store_sidebar

st.set_page_config(page_title="StoryScope", layout="wide")
store_sidebar()

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
]

st.navigation(PAGES).run()
