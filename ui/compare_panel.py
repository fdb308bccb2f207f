"""Paired comparison of two settings on the Verdicts page (`pipelines.compare`, the same
code as `storyscope compare`): per-question F1 difference on the questions both answered, a
paired bootstrap 95% interval, sign-test and permutation p-values, wins / ties / losses, and the
questions with the biggest differences linked to their claims × settings grid."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from data_access.queries import verdicts_view
from pipelines.compare import compare_settings, judged_settings
from ui.common import derived, query
from ui.downloads import download_buttons
from ui.filters import url_selectbox
from ui.safe_text import inert, plain
from ui.type_legend import type_legend

RESAMPLES = 10_000


def _grid_link(question_id: str, judge_id: str) -> str:
    return "verdicts?" + urlencode(
        {"view": "Claims × settings", "q": question_id, "judge": judge_id}
    )


def _results_table(result) -> pd.DataFrame:
    rows = [
        {
            "group": r.group,
            "questions": r.n,
            "F1 a": r.mean_a,
            "F1 b": r.mean_b,
            "b − a": r.mean_diff,
            "95% CI low": r.ci_low,
            "95% CI high": r.ci_high,
            "wins": r.wins,
            "ties": r.ties,
            "losses": r.losses,
            "sign test p": r.sign_p,
            "permutation p": r.permutation_p,
        }
        for r in result.results
    ]
    return pd.DataFrame(rows).round(4)


def compare_section(judge_id: str, film_id, qtypes: tuple[str, ...]) -> None:
    """Pick settings A and B; show the paired statistics and the largest differences."""
    # only settings this judge scored, opening on the pair with the most questions both scored
    judged = derived(judged_settings, verdicts_view.answer_counts, judge_id, film_id, qtypes)
    if judged.pair is None:
        st.caption(
            inert(
                f"A comparison needs two settings judged by {judge_id} in this slice"
                f" ({len(judged.settings)} judged). Judge more settings, or pick another judge."
            )
        )
        return
    settings = query(verdicts_view.settings_list)
    labels = dict(zip(settings["setting_id"], settings["label"].map(plain)))
    ids = judged.settings
    left, right, third = st.columns(3)
    a = url_selectbox(
        "Setting A",
        ids,
        key="cmp_a",
        default=judged.pair[0],
        format_func=lambda s: labels.get(s, s),
        container=left,
    )
    b = url_selectbox(
        "Setting B",
        ids,
        key="cmp_b",
        default=judged.pair[1],
        format_func=lambda s: labels.get(s, s),
        container=right,
    )
    by_type = third.checkbox("By question type", key="cmp_by_type")
    if a == b:
        st.caption("Pick two different settings.")
        return
    counts = query(verdicts_view.answer_counts, judge_id, film_id, qtypes, (a, b))
    result = compare_settings(counts, judge_id, a, b, by_type, resamples=RESAMPLES)
    overall = result.results[0]
    if overall.n == 0:
        st.caption(
            inert(f"No question was answered by both settings and fully judged by {judge_id}.")
        )
        return
    cols = st.columns(4)
    cols[0].metric("Questions both answered", overall.n)
    cols[1].metric(
        "Mean F1 difference (B − A)",
        f"{overall.mean_diff:+.3f}",
        help=f"paired bootstrap 95% CI [{overall.ci_low:+.3f}, {overall.ci_high:+.3f}]",
    )
    cols[2].metric(
        "Wins / ties / losses of B", f"{overall.wins} / {overall.ties} / {overall.losses}"
    )
    cols[3].metric("Permutation p", f"{overall.permutation_p:.4f}")
    sign_p = "—" if overall.sign_p is None else f"{overall.sign_p:.4f}"
    st.caption(
        f"judge {inert(judge_id)} · 95% CI [{overall.ci_low:+.3f}, {overall.ci_high:+.3f}] "
        f"({RESAMPLES} paired resamples) · sign test p = {sign_p}"
    )
    table = _results_table(result)
    st.dataframe(table, hide_index=True, width="stretch", key="compare_table")
    top = result.top_differences(15)
    top["grid"] = [_grid_link(q, judge_id) for q in top["question_id"]]
    st.markdown("**Largest differences** (open a question's grid from the last column)")
    st.dataframe(
        top.round(3),
        hide_index=True,
        width="stretch",
        key="compare_top",
        column_config={"grid": st.column_config.LinkColumn("grid", display_text="open grid")},
    )
    type_legend(top["qtype"].unique() if "qtype" in top else None)
    download_buttons(result.pairs, f"compare_{a}_vs_{b}", key="compare")
