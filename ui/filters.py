"""Filters bound to the URL with Streamlit's own binding (`bind="query-params"`): the address bar
always holds the current view and a shared URL reopens it (DESIGN.md, "filters bound to query
params"). Widgets are keyed by their query-parameter name.

Streamlit writes what a widget shows: a picker with a `format_func` puts its label in the URL
(`?film=Chinatown+(film)`), a range puts both ends (`?scenes=2&scenes=9`), and a value equal to
the widget's default is left out. Links made before the binding, and the app's own links, name
the option itself (`?film=<film_id>`, `?scene=3`) and a range as `?scenes=2-9`: each helper
reads those first, so they still open the view they name. A link value the page does not have
is named in a notice (`ui.link_notices`), never dropped silently."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from data_access.formats.film_time import film_clock
from ui.link_notices import unknown_url_value
from ui.safe_text import plain

BIND = "query-params"

# URL keys whose value this session has already checked: a link's value is checked when the
# page first reads it; a value left over from an earlier choice on the page (a scene of the film
# shown before) is dropped quietly, as the visitor changed it themselves.
_URL_CHECKED = "_url_checked"


def _first_read(key: str) -> bool:
    checked = st.session_state.setdefault(_URL_CHECKED, set())
    first = key not in checked
    checked.add(key)
    return first


def _linked_option(
    wanted: str | None, options: Sequence[str], describe: Callable[[Any], str]
) -> str | None:
    """The option a link's value names: the option itself (the app's own and older links) or
    the label the binding writes."""
    if wanted is None:
        return None
    if wanted in options:
        return wanted
    return next((option for option in options if str(describe(option)) == wanted), None)


def _initial(
    key: str, options: Sequence[str], default: str | None, describe: Callable[[Any], str] = str
) -> str | None:
    wanted = st.query_params.get(key)
    linked = _linked_option(wanted, options, describe)
    if linked is not None:
        _first_read(key)
        return linked
    chosen = default if default in options else (options[0] if options else None)
    if wanted is not None and _first_read(key):
        unknown_url_value(key, [wanted], describe(chosen) if chosen is not None else None)
    return chosen


def _carry_over(key: str) -> None:
    """Make the value under `key` this page's widget's own. Pages share keys (`film`, `who`):
    a value another page's widget left under the key is readable here, but a widget of another
    label is another widget to Streamlit, which would ignore it and start at its first option
    (Belief timelines opened on the first film of the list after the Film page). Writing the
    value back hands it to whichever widget is drawn next under the key."""
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]


def url_selectbox(
    label: str,
    options: Sequence[str],
    key: str,
    default: str | None = None,
    format_func: Callable[[Any], str] = str,
    container=st,
    **kwargs,
) -> str | None:
    """A selectbox whose value lives in the URL as `?key=<label>` (or `?key=<option>`).

    Args:
        label: widget label.
        options: string options (query parameters are strings).
        key: widget key and query-parameter name.
        default: used when the URL has no (valid) value.
        format_func: how an option is shown.
        container: where to draw it (st, st.sidebar, a column).
    """
    options = [str(o) for o in options]
    if not options:
        return None
    if st.session_state.get(key) not in options:
        st.session_state[key] = _initial(key, options, default, format_func)
    _carry_over(key)
    return container.selectbox(
        label, options, key=key, format_func=format_func, bind=BIND, **kwargs
    )


def url_multiselect(
    label: str,
    options: Sequence[str],
    key: str,
    default: Sequence[str] = (),
    container=st,
    **kwargs,
) -> list[str]:
    """A multiselect whose values live in the URL as repeated `?key=a&key=b`."""
    options = [str(o) for o in options]
    describe = kwargs.get("format_func", str)
    if key not in st.session_state or not set(st.session_state[key]) <= set(options):
        # values from another film (the page's film changed) are no choice here: fall back to
        # the default rather than an empty pick that blanks the page
        asked = st.query_params.get_all(key)
        linked = [_linked_option(v, options, describe) for v in asked]
        wanted = list(dict.fromkeys(v for v in linked if v is not None))
        st.session_state[key] = wanted or [d for d in default if d in options]
        unknown = [v for v, known in zip(asked, linked, strict=True) if known is None]
        if unknown and _first_read(key):
            unknown_url_value(key, unknown, ", ".join(st.session_state[key]))
    _carry_over(key)
    return list(container.multiselect(label, options, key=key, bind=BIND, **kwargs))


def url_radio(
    label: str, options: Sequence[str], key: str, default: str | None = None, container=st, **kwargs
) -> str | None:
    """A horizontal radio whose value lives in the URL (used for view switches)."""
    options = [str(o) for o in options]
    if st.session_state.get(key) not in options:
        st.session_state[key] = _initial(key, options, default, kwargs.get("format_func", str))
    _carry_over(key)
    return container.radio(label, options, key=key, horizontal=True, bind=BIND, **kwargs)


def url_text(label: str, key: str, default: str = "", container=st, **kwargs) -> str:
    """A text input whose value lives in the URL (an empty value is left out of it)."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, default)
    return container.text_input(label, key=key, bind=BIND, **kwargs)


# h:mm:ss (or m:ss) as the paper prints film times (Tables 9–11); the one formatter
minutes = film_clock


def _linked_range(key: str, options: Sequence[int]) -> tuple[int, int] | None:
    """The ends a link names, as the binding writes them (`?key=lo&key=hi`) or as links made
    before it did (`?key=lo-hi`); None when the link names no range of these options."""
    asked = st.query_params.get_all(key)
    parts = asked[0].split("-", 1) if len(asked) == 1 else asked
    try:
        low, high = (int(part) for part in parts)
    except ValueError:
        return None
    return (low, high) if low in options and high in options and low <= high else None


def url_range(
    label: str, options: Sequence[int], key: str, default: tuple[int, int], container=st, **kwargs
) -> tuple[int, int]:
    """A range select-slider whose ends live in the URL as `?key=lo&key=hi`."""
    options = [int(o) for o in options]
    kept = st.session_state.get(key)
    if kept is not None and not (kept[0] in options and kept[1] in options):
        del st.session_state[key]  # ends from another film or group: start from the URL/default
    if key not in st.session_state and _first_read(key):
        asked = st.query_params.get_all(key)
        linked = _linked_range(key, options)
        if linked is not None and linked != default:
            # the binding reads only its own form; the ends it cannot read are handed over
            st.session_state[key] = linked
        elif asked and linked is None:
            unknown_url_value(key, ["-".join(asked)], f"{default[0]}-{default[1]}")
    # `value` keeps the widget a range for the binding (without it Streamlit's URL default is
    # one end, and a rerun drops the other)
    low, high = container.select_slider(label, options, key=key, value=default, bind=BIND, **kwargs)
    return low, high


# (page's `first_with`, film) that picker last showed: a film that arrives otherwise (another
# page's picker, a link) is checked for data; one picked on this page is kept as picked
_FILM_CHOSEN_ON = "_film_chosen_on"
# (film to show, film replaced) handed to the rerun that shows it
_FILM_HANDOVER = "_film_handover"


def film_labels(films, with_kind: bool = True) -> dict[str, str]:
    """film_id -> "Title (kind)" for pickers; two films of one title (a dataset's Chinatown and
    an ingested screenplay's) are told apart by their dataset, then by their id."""
    import pandas as pd

    label = films["title"].astype(str) + (" (" + films["kind"] + ")" if with_kind else "")
    repeated = label.duplicated(keep=False)
    label = label.where(~repeated, label + " · " + films["dataset_id"].astype(str))
    repeated = label.duplicated(keep=False)
    label = label.where(~repeated, label + " · " + films["film_id"].astype(str))
    return dict(zip(films["film_id"], pd.Series(label).map(plain)))


def url_film(
    label: str,
    first_with: str,
    empty_hint: str,
    has_data: Callable[[str], bool] | None = None,
) -> str:
    """The one-film picker (`?film=`): films and stories titled with their kind, defaulting to the
    first film that has `first_with` rows; stops the page with `empty_hint` when there is none.

    The Film page and Belief timelines share `?film=`. A film that arrives from the other page
    (or a link) and has no data here (`has_data` is False) is replaced by the first film that
    has some, with a note: a page never opens on an empty film while one with data exists.
    A film picked on this page itself is kept, and the page says how to fill it.
    """
    from data_access.queries import film_view
    from ui.common import query

    films = query(film_view.film_choices)
    if films.empty:
        st.info(empty_hint)
        st.stop()
    titles = film_labels(films)
    default = query(film_view.first_film_with, first_with)
    arriving = st.session_state.get("film") or _linked_option(
        st.query_params.get("film"), list(titles), titles.get
    )
    replaced = None
    handover = st.session_state.pop(_FILM_HANDOVER, None)
    if handover is not None:
        st.session_state["film"], replaced = handover
    elif (
        has_data is not None
        and st.session_state.get(_FILM_CHOSEN_ON) != (first_with, arriving)
        and arriving in titles
        and default not in (None, arriving)
        and not has_data(arriving)
    ):
        st.session_state["film"] = default
        replaced = arriving

    def picked_here() -> None:  # runs before the rerun a pick on this page starts
        st.session_state[_FILM_CHOSEN_ON] = (first_with, st.session_state["film"])

    film = url_selectbox(
        label,
        list(films["film_id"]),
        key="film",
        format_func=titles.get,
        default=default,
        on_change=picked_here,
    )
    if replaced and film != default and handover is None:
        # a link in the binding's own form (the film's label) wins over the page on a first
        # load; on the rerun the page's choice wins, as after any pick
        st.session_state[_FILM_HANDOVER] = (default, replaced)
        st.rerun()
    st.session_state[_FILM_CHOSEN_ON] = (first_with, film)
    if replaced:
        st.caption(
            f"{plain(titles[replaced])} has no {first_with} yet: showing {plain(titles[film])}."
        )
    return film


def url_film_or_all(all_value: str = "(all films)") -> str | None:
    """The film filter (`?film=`) of slice pages: one film, or `all_value` for every film (None)."""
    from data_access.queries import film_view
    from ui.common import query

    films = query(film_view.film_choices)
    titles = {all_value: "(all films)", **film_labels(films, with_kind=False)}
    film = url_selectbox("Film", [all_value, *films["film_id"]], key="film", format_func=titles.get)
    return None if film == all_value else film
