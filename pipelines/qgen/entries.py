"""Belief entries of each question type (LF-VideoQA App. F.1, Table 7) and the candidate
(type, center, anchor) triples they yield.

The seed text of the paper carries Table 7's caption but not its body, so the selection below is
our reading of the type definitions the paper does print (Table 25's `revised_type` list, Tables
1 and 9–11, Table 22's caption naming `c_told_d` / `believed_by_c`). Each builder returns
`Candidate`s; the context-set module adds the name budget, rivals and scenes, and applies the
discard rules.

Entries use the belief record's own field names (that is what the question writer is given and
told to keep out of the question).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from data_access.formats.question_types import ALL_TYPES
from pipelines.qgen.film_view import FilmView

MAX_ENTRIES = 8


@dataclass
class Candidate:
    """One (type, center, anchor) with the belief entries a question would rest on."""

    qtype: str
    center: str  # Q1: the group, names joined by " + "
    members: list[str]  # the characters whose minds are asked about
    anchor_scene: int
    entries: list[dict] = field(default_factory=list)
    about: str | None = None  # N2 / Q5 / Q6: the other character


def belief_entry(belief: dict) -> dict:
    """A first-order belief as the question writer sees it."""
    entry = {
        "entry": belief["belief_id"],
        "holder": belief["holder"],
        "kind": belief["kind"],
        "content": belief["content"],
        "scene": belief["scene_index"],
        "basis": list(belief.get("basis") or []),
    }
    if belief["kind"] == "told":
        entry.update(
            c_told_d=belief["content"],
            teller=belief.get("source_character"),
            believed_by_c=belief.get("believed"),
        )
    if belief.get("is_false") or belief["kind"] == "false":
        entry["is_false"] = True
    if belief.get("revises"):
        entry["revises"] = belief["revises"]
    if belief.get("revised_at_scene") is not None:
        entry["revised_at_scene"] = belief["revised_at_scene"]
    return entry


def meta_entry(meta: dict) -> dict:
    """A meta-belief (c's belief about d's mind, Table 21) as the question writer sees it."""
    return {
        "entry": meta["meta_id"],
        "holder": meta["holder"],
        "about": meta["about"],
        "claim": meta["claim"],
        "type": meta["type"],
        "source": meta.get("source"),
        "change": meta.get("change"),
        "scene": meta["scene_index"],
        "basis": list(meta.get("basis") or []),
    }


def _is_false(belief: dict) -> bool:
    return bool(belief.get("is_false")) or belief["kind"] == "false"


# -- one builder per type --------------------------------------------------------------------
def q1_knowledge_split(view: FilmView) -> Iterator[Candidate]:
    """Q1: several people present at one moment, each with their own active beliefs."""
    for scene_index in sorted(view.scenes):
        members = [
            h
            for h in view.holders()
            if view.is_present(scene_index, h) and view.active_at(h, scene_index)
        ]
        if len(members) < 2:
            continue
        entries = [belief_entry(b) for h in members for b in view.active_at(h, scene_index)[-2:]]
        if len({e["content"] for e in entries}) < 2:
            continue  # everyone knows the same thing: no split
        yield Candidate("Q1", " + ".join(members), members, scene_index, entries[:MAX_ENTRIES])


def q2_realization(view: FilmView) -> Iterator[Candidate]:
    """Q2: a belief revised at the anchor, with the prior it replaces."""
    by_id = {(b["holder"], b["belief_id"]): b for b in view.beliefs}
    for belief in view.beliefs:
        prior = by_id.get((belief["holder"], belief.get("revises")))
        if belief["kind"] != "revised" and prior is None:
            continue
        entries = ([belief_entry(prior)] if prior else []) + [belief_entry(belief)]
        yield Candidate("Q2", belief["holder"], [belief["holder"]], belief["scene_index"], entries)


def q3_false_belief(view: FilmView) -> Iterator[Candidate]:
    """Q3: a false belief the center holds at the anchor (where it forms)."""
    for belief in view.beliefs:
        if _is_false(belief):
            yield Candidate(
                "Q3",
                belief["holder"],
                [belief["holder"]],
                belief["scene_index"],
                [belief_entry(belief)],
            )


def q4_knowledge_source(view: FilmView) -> Iterator[Candidate]:
    """Q4: how a fact reaches the center — witnessed, told or inferred, with its basis."""
    for belief in view.beliefs:
        if belief["kind"] in ("witnessed", "told", "inferred") and not _is_false(belief):
            yield Candidate(
                "Q4",
                belief["holder"],
                [belief["holder"]],
                belief["scene_index"],
                [belief_entry(belief)],
            )


def _meta_builder(qtype: str, meta_type: str) -> Callable[[FilmView], Iterator[Candidate]]:
    def build(view: FilmView) -> Iterator[Candidate]:
        for meta in view.meta_beliefs:
            if meta["type"] == meta_type:
                yield Candidate(
                    qtype,
                    meta["holder"],
                    [meta["holder"]],
                    meta["scene_index"],
                    [meta_entry(meta)],
                    about=meta["about"],
                )

    build.__doc__ = f"{qtype}: meta-beliefs of type {meta_type} (Table 21)."
    return build


def q7_accepting_a_claim(view: FilmView) -> Iterator[Candidate]:
    """Q7: what the center makes of what they are told (c_told_d, believed_by_c)."""
    for belief in view.beliefs:
        if belief["kind"] == "told" and belief.get("source_character"):
            yield Candidate(
                "Q7",
                belief["holder"],
                [belief["holder"]],
                belief["scene_index"],
                [belief_entry(belief)],
                about=belief.get("source_character"),
            )


def q8_ordered_discoveries(view: FilmView) -> Iterator[Candidate]:
    """Q8: three or more discoveries at distinct scenes, in order, up to the anchor."""
    for holder in view.holders():
        formed: dict[int, dict] = {}
        for belief in sorted(view.beliefs_of(holder), key=lambda b: b["scene_index"]):
            formed.setdefault(belief["scene_index"], belief)
        scenes = sorted(formed)
        if len(scenes) >= 3:
            anchor = scenes[-1]
            yield Candidate(
                "Q8", holder, [holder], anchor, [belief_entry(formed[s]) for s in scenes[-4:]]
            )


def n1_epistemic_arc(view: FilmView) -> Iterator[Candidate]:
    """N1: the center's knowledge across the film, anchored at their last belief."""
    for holder in view.holders():
        beliefs = sorted(view.beliefs_of(holder), key=lambda b: b["scene_index"])
        if len({b["scene_index"] for b in beliefs}) >= 3:
            step = max(1, len(beliefs) // MAX_ENTRIES)
            picked = beliefs[::step][:MAX_ENTRIES]
            yield Candidate(
                "N1",
                holder,
                [holder],
                beliefs[-1]["scene_index"],
                [belief_entry(b) for b in picked],
            )


def n2_trust_evolution(view: FilmView) -> Iterator[Candidate]:
    """N2: how c's model of d changes — meta-beliefs about d at two or more scenes."""
    pairs: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for meta in view.meta_beliefs:
        pairs[(meta["holder"], meta["about"])].append(meta)
    for (holder, about), metas in sorted(pairs.items()):
        metas.sort(key=lambda m: m["scene_index"])
        if len({m["scene_index"] for m in metas}) >= 2:
            yield Candidate(
                "N2",
                holder,
                [holder],
                metas[-1]["scene_index"],
                [meta_entry(m) for m in metas[-MAX_ENTRIES:]],
                about=about,
            )


def n3_causal_chain(view: FilmView) -> Iterator[Candidate]:
    """N3: a belief and the earlier beliefs of the same holder that lead to it (shared basis
    events or a revision link), in scene order."""
    for belief in view.beliefs:
        chain = _causes(view, belief)
        if len(chain) >= 2:
            yield Candidate(
                "N3",
                belief["holder"],
                [belief["holder"]],
                belief["scene_index"],
                [belief_entry(b) for b in chain + [belief]][-MAX_ENTRIES:],
            )


def _causes(view: FilmView, belief: dict) -> list[dict]:
    basis = set(belief.get("basis") or [])
    earlier = [
        b for b in view.beliefs_of(belief["holder"]) if b["scene_index"] < belief["scene_index"]
    ]
    linked = [
        b
        for b in earlier
        if b["belief_id"] == belief.get("revises")
        or basis & set(b.get("basis") or [])
        or f"s_{b['scene_index']:03d}" in basis
    ]
    return sorted(linked, key=lambda b: b["scene_index"])


BUILDERS: dict[str, Callable[[FilmView], Iterator[Candidate]]] = {
    "Q1": q1_knowledge_split,
    "Q2": q2_realization,
    "Q3": q3_false_belief,
    "Q4": q4_knowledge_source,
    "Q5": _meta_builder("Q5", "first_order_about_d"),
    "Q6": _meta_builder("Q6", "about_third_party"),
    "Q7": q7_accepting_a_claim,
    "Q8": q8_ordered_discoveries,
    "N1": n1_epistemic_arc,
    "N2": n2_trust_evolution,
    "N3": n3_causal_chain,
}


def candidates(view: FilmView, qtypes: tuple[str, ...] = ALL_TYPES) -> list[Candidate]:
    """Every candidate of the requested types, in type order; candidates sharing (type,
    center, anchor, about) are merged — two beliefs formed in one scene make one context-set."""
    merged: dict[tuple, Candidate] = {}
    for qtype in qtypes:
        for candidate in BUILDERS[qtype](view):
            key = (qtype, candidate.center, candidate.anchor_scene, candidate.about)
            if key not in merged:
                merged[key] = candidate
                continue
            known = {e["entry"] for e in merged[key].entries}
            merged[key].entries += [e for e in candidate.entries if e["entry"] not in known]
            merged[key].entries = merged[key].entries[:MAX_ENTRIES]
    return list(merged.values())
