"""Film: scene timeline (matched vs interpolated times), presence grid, scene reader, frames."""

import streamlit as st

from data_access.queries import film_view, ingest_view
from ui.common import chart, query
from ui.downloads import download_buttons
from ui.filters import minutes, url_film, url_selectbox
from ui.frames import MAX_FRAMES, frame_strip, scene_frames
from ui.safe_text import inert, show_text, shown_table
from viz.film import PRESENCE_ROWS, presence_grid_figure, scene_timeline_figure, scene_titles

st.title("Film")


def _has_scenes(film: str) -> bool:
    return not query(film_view.scene_timeline, film).empty


film_id = url_film(
    "Film",
    "scenes",
    "No films in this store. Build the demo store with `storyscope demo` or import a dataset.",
    has_data=_has_scenes,
)
header = query(film_view.film_header, film_id)
cols = st.columns(4)
cols[0].metric("Runtime", minutes(header["runtime_s"]))
cols[1].metric("Scenes", int(header["scenes"]))
cols[2].metric("Characters", int(header["characters"]))
cols[3].metric("Questions", int(header["questions"]))

scenes = query(film_view.scene_timeline, film_id)
if scenes.empty:
    st.info(
        "This film has no scenes yet. Scenes come from a screenplay and its subtitles:\n\n"
        "`storyscope film ingest --screenplay FILE --subtitles FILE`\n\n"
        "or from an aligned dataset (`storyscope import storyvideoqa DIR`)."
    )
    st.stop()

scene_names = dict(zip(scenes["scene_index"], scene_titles(scenes)))
scene = int(
    url_selectbox(
        "Scene",
        [str(i) for i in scenes["scene_index"]],
        key="scene",
        format_func=lambda i: scene_names[int(i)],
    )
)
st.subheader("Scene timeline")
counts = scenes["time_source"].value_counts()
st.caption(" · ".join(f"{n} {source}" for source, n in counts.items()) + " scene times")
match = query(ingest_view.ingest_match, film_id)
if match and match["low"]:
    st.warning(
        f"Low dialogue match: {match['share_lines_matched']:.1%} of screenplay lines match a "
        f"subtitle cue (accepted with --min-match {match['min_match']:g}; the default needs "
        f"{ingest_view.DEFAULT_MIN_MATCH:.0%}). Scenes with no matched line have interpolated "
        "times; treat every time on this page as approximate."
    )
chart(scene_timeline_figure, scenes, header["runtime_s"], scene, key="scene_timeline")
download_buttons(scenes, f"scenes_{film_id}", key="scenes")

if header.get("video_path"):
    st.subheader("Scene keyframes")
    # the scenes around the open one, each at its midpoint (a strip, not the whole film)
    timed = scenes.dropna(subset=["start_s", "end_s"]).reset_index(drop=True)
    at = (
        int(timed.index[timed["scene_index"] >= scene].min())
        if (timed["scene_index"] >= scene).any()
        else 0
    )
    strip = timed.iloc[max(0, at - MAX_FRAMES // 2) :][:MAX_FRAMES]
    frame_strip(
        header["video_path"],
        list((strip["start_s"] + strip["end_s"]) / 2),
        [scene_names[i] for i in strip["scene_index"]],
    )

st.subheader("Who is where")
presence = query(film_view.presence_grid, film_id)
if presence.empty:
    st.caption("No presence records for this film.")
else:
    total = presence["character"].nunique()
    limit = PRESENCE_ROWS
    if total > PRESENCE_ROWS:
        everyone = st.toggle(f"Show all {total} characters", key="all_characters")
        limit = None if everyone else PRESENCE_ROWS
        if not everyone:
            st.caption(f"The {PRESENCE_ROWS} characters on screen in the most scenes.")
    chart(presence_grid_figure, presence, limit, key="presence_grid")

st.subheader("Scene reader")
row = scenes.set_index("scene_index").loc[scene]
st.markdown(
    f"**{inert(scene_names[scene])}** — {minutes(row['start_s'])}–{minutes(row['end_s'])}"
    f" ({inert(row['time_source'])})"
)
if isinstance(row["summary"], str) and row["summary"]:
    show_text(row["summary"], caption=True)
# only the open tab is drawn (a rerun on switching): three tables drawn at once, two of them
# hidden, were ~0.5 s of the page's first render in the browser
lines_tab, events_tab, subs_tab, frames_tab = st.tabs(
    ["Lines", "Events", "Subtitles", "Frames"], key="reader_tab", on_change="rerun"
)
READERS = {
    lines_tab: film_view.scene_lines,
    events_tab: film_view.scene_events,
    subs_tab: film_view.scene_subtitles,
}
for tab, reader in READERS.items():
    if tab.open:
        tab.dataframe(shown_table(query(reader, film_id, scene)), hide_index=True, width="stretch")
if frames_tab.open:
    with frames_tab:
        scene_frames(header.get("video_path"), row["start_s"], row["end_s"])
