"""`python -m pages.serve run app.py [streamlit options]`: `streamlit run`, minus one legacy trap.

Streamlit decides per process whether the app uses the legacy `pages/` directory (multipage v1)
on the first session, before app.py has called `st.navigation`. When that first session is a
shared deep link (`/verdicts?film=...`) on a fresh server, the legacy mode answers it — a "Page
not found" dialog, and the sidebar lists the helper modules of `pages/` as pages. Our pages are
declared with `st.navigation` only, so we switch the legacy mode off before the server starts;
everything else is the plain `streamlit` command line.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the streamlit CLI with the legacy pages-directory mode disabled."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web.cli import main as streamlit_main

    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
