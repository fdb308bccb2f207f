"""Figures and tables of StoryVideoQA MCQ methods: the store's methods beside the paper's
Tables 8-9 rows, and one method's choices per question."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from data_access.formats.story_topics import TOPICS
from viz.distributions import accuracy_by_topic_table
from viz.safe import escapes_untrusted

_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10))


def beside_paper_table(
    ours: pd.DataFrame, origins: pd.DataFrame, paper: pd.DataFrame
) -> pd.DataFrame:
    """One table: the store's methods (accuracy per topic, Avg over all their questions) then
    the paper's rows, each labelled with where it comes from.

    Args:
        ours: long accuracy rows (method, question_type, story_element, accuracy, n), as
            `distributions.accuracy_by_topic` returns them.
        origins: method -> origin ('StoryScope' / 'imported'), from `prediction_methods`.
        paper: `paper_tables.paper_accuracy_by_topic` rows.
    """
    wide = accuracy_by_topic_table(ours) if not ours.empty else pd.DataFrame(columns=["method"])
    origin = dict(zip(origins["method"], origins["origin"]))
    wide = wide.assign(source=[f"this store ({origin.get(m, 'imported')})" for m in wide["method"]])
    reported = paper.assign(source=paper["table_ref"] + " (reported)")
    columns = ["source", "method", *TOPICS, "Avg"]
    both = pd.concat([wide.reindex(columns=columns), reported.reindex(columns=columns)])
    return both.reset_index(drop=True)


@escapes_untrusted
def topic_accuracy_heatmap(table: pd.DataFrame) -> go.Figure:
    """Accuracy (%) per method (rows, the store's first) and topic (columns), from
    `beside_paper_table`; a blank cell is a topic the method answered no question of."""
    labels = [f"{m} — {s}" for m, s in zip(table["method"], table["source"])]
    columns = [*TOPICS, "Avg"]
    values = table.reindex(columns=columns).astype(float)
    figure = go.Figure(
        go.Heatmap(
            z=values.to_numpy(),
            x=columns,
            y=labels,
            zmin=0,
            zmax=100,
            colorscale="Viridis",
            colorbar=dict(title="%"),
            hovertemplate="%{y}<br>%{x}: %{z:.1f}%<extra></extra>",
        )
    )
    figure.update_layout(
        title="Accuracy by topic: this store's methods and the paper's reported rows",
        height=max(300, 22 * len(labels) + 120),
        yaxis=dict(autorange="reversed", type="category"),
        xaxis=dict(type="category"),
        **_LAYOUT,
    )
    return figure


def options_table(choices: list[str], correct: str, chosen: str | None) -> pd.DataFrame:
    """The options of one question with the correct one and the method's choice marked."""
    letters = "ABCDE"[: len(choices)]
    return pd.DataFrame(
        {
            "option": list(letters),
            "text": [str(c) for c in choices],
            "correct": ["✓" if x == correct else "" for x in letters],
            "chosen": ["◀ chosen" if x == chosen else "" for x in letters],
        }
    )
