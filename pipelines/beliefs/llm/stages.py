"""The LLM path of `storyscope beliefs annotate --backend openai` (LF-VideoQA §3.1, App. D).

Scenes are processed one at a time in film order, so a character's record at a scene depends
only on what came before. Per scene: scene events (Table 18, one call), then for each character
presence and witnessed events (Table 19), then told / inferred / false / revised beliefs
(Table 20), then meta-beliefs (Table 21) about the other characters in groups.

Coverage (`coverage`): App. D makes both first-order calls "for every character and scene" and
meta-beliefs "for every character A and scene", so by default ('paper') every character gets
every call in every scene: an absent character can still be told something offscreen, revise a
belief, or come to think another character missed an event (d_absence). 'present' is the
cheaper policy we used before: no Table 20 call for characters the presence call finds
absent_unmentioned, and meta-beliefs only for holders who perceive the scene (on_screen or
offscreen_aware). The running belief state (stable [Bk] / [Fk] tags) is carried scene to
scene. `BeliefAnnotator` collects the rows; a run of it (dry-run counts, provenance, writing the
rows) is llm/film.py, and many films on an executor llm/scaled.py.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from data_access.store import Store
from pipelines.beliefs.backend_io import LoadedFilm, Selection, load_film
from pipelines.beliefs.llm import parsers
from pipelines.beliefs.llm.prompts import events_block, messages, scene_block
from pipelines.beliefs.rules import engine as rules
from pipelines.llm import Gateway, LLMRequest

GROUP_SIZE = 6
COVERAGES = ("paper", "present")
DEFAULT_COVERAGE = "paper"
PERCEIVING = ("on_screen", "offscreen_aware")
SAME_BELIEF = 85  # rapidfuzz token_sort_ratio at which two belief texts are the same


def scene_id(index: int) -> str:
    return f"s_{index:03d}"


@dataclass
class Record:
    """One character's running record: belief rows by tag, meta-beliefs, last presence."""

    rows: dict[str, dict] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=lambda: {"B": 0, "F": 0})
    meta: list[dict] = field(default_factory=list)
    presence: str = "absent_unmentioned"

    def new_tag(self, letter: str) -> str:
        self.counters[letter] += 1
        return f"{letter}{self.counters[letter]}"

    def active(self) -> list[dict]:
        return [
            r
            for r in self.rows.values()
            if r["revised_at_scene"] is None and r.get("believed") is not False
        ]

    def state_text(self) -> str:
        lines = []
        for row in self.active():
            origin = f"told by {row['source_character']}" if row["kind"] == "told" else row["kind"]
            lines.append(
                f"[{row['belief_id']}] ({scene_id(row['scene_index'])}, {origin}) {row['content']}"
            )
        return "\n".join(lines) or "(none)"


class BeliefAnnotator:
    """Runs the four stages over a film's selected scenes and collects the rows."""

    def __init__(
        self,
        store: Store,
        film_id: str,
        selection: Selection,
        gateway: Gateway,
        coverage: str = DEFAULT_COVERAGE,
        loaded: LoadedFilm | None = None,
    ):
        # `loaded`: the film as `load_film` returns it, for a worker that has no store
        self.store, self.film_id, self.selection, self.gateway = store, film_id, selection, gateway
        self.coverage = check_coverage(coverage)
        loaded = loaded or load_film(store, film_id)
        self.scenes, self.locations, self.roster = loaded.scenes, loaded.locations, loaded.roster
        self.tables: dict[str, list[dict]] = defaultdict(list)
        self.issues: list[dict] = []
        self.records: dict[str, Record] = defaultdict(Record)
        self.failed = 0
        self.meta_counter = 0
        self.stopped = False

    # -- plumbing ---------------------------------------------------------------------------
    def _ask(self, stage: str, items: list[tuple[str, list[dict], object]]) -> dict:
        """Send one batch; returns item_id -> Parsed for the usable replies."""
        requests = [
            LLMRequest(item_id, msgs, parse=parse, params={"temperature": 0})
            for item_id, msgs, parse in items
        ]
        answers = {}
        for result in self.gateway.run(requests):
            if result.status == "skipped":
                self.stopped = True
            elif not result.ok:
                self.failed += 1
                self._issue(result.item_id, stage, f"call failed: {result.error}")
            else:
                answers[result.item_id] = result.parsed
                for problem in result.parsed.problems:
                    self._issue(result.item_id, stage, problem)
        return answers

    def _issue(self, item_id: str, stage: str, issue: str) -> None:
        self.issues.append({"item_id": item_id, "stage": stage, "issue": issue[:500]})

    def _item(self, index: int, *parts: str) -> str:
        return ":".join([self.film_id, scene_id(index), *parts])

    # -- the film -----------------------------------------------------------------------------
    def characters(self) -> list[str]:
        if self.selection.characters:
            return [c for c in self.selection.characters if c in self.roster.names]
        listed = set()
        for index, lines in self.scenes.items():
            if self.selection.has_scene(index):
                listed |= set(self.listed(lines))
        return [c for c in self.roster.names if c in listed]

    def listed(self, lines) -> list[str]:
        """Scene roster: speakers and characters named in directions."""
        names = {
            name
            for line in lines
            if line.kind == "dialogue"
            for name in rules.split_group(line.character)
        }
        names |= {
            c
            for line in lines
            if line.kind == "direction"
            for c in self.roster.mentioned(line.text)
        }
        return [c for c in self.roster.names if c in names] + sorted(names - set(self.roster.names))

    def run(self) -> None:
        characters = self.characters()
        for index in sorted(self.scenes):
            if not self.selection.has_scene(index) or self.stopped:
                continue
            lines = self.scenes[index]
            events = self.scene_events(index, lines)
            if self.stopped:
                break
            self.first_order(index, lines, events, characters)
            self.meta_beliefs(index, lines, events, characters)

    # -- Table 18 -----------------------------------------------------------------------------
    def scene_events(self, index: int, lines) -> list[dict]:
        listed = self.listed(lines)
        msgs = messages(
            "events",
            scene_id=scene_id(index),
            heading=self._heading(index),
            characters=", ".join(listed) or "(none)",
            scene_text=scene_block(lines),
        )
        item = self._item(index, "events")
        answer = self._ask("events", [(item, msgs, lambda t: parsers.parse_events(t, listed))])
        events = []
        for number, event in enumerate(answer[item].items if item in answer else [], start=1):
            events.append(
                {
                    "film_id": self.film_id,
                    "event_id": f"e_{index:03d}_{number}",
                    "scene_index": index,
                    "ord": number,
                    **event,
                }
            )
        self.tables["scene_events"].extend(events)
        return events

    def _heading(self, index: int) -> str:
        return str(self.locations.get(index) or "")

    # -- Tables 19 and 20 -----------------------------------------------------------------------
    def first_order(self, index, lines, events, characters) -> None:
        event_ids = [e["event_id"] for e in events]
        common = {
            "scene_id": scene_id(index),
            "heading": self._heading(index),
            "scene_text": scene_block(lines),
            "events": events_block(events),
        }
        previous = scene_id(index - 1) if index else "none"
        asks = [
            (
                self._item(index, c, "presence"),
                messages(
                    "presence",
                    character=c,
                    characters=", ".join(self.listed(lines)),
                    previous_scene_id=previous,
                    previous_presence=self.records[c].presence,
                    belief_state=self.records[c].state_text(),
                    **common,
                ),
                lambda t: parsers.parse_presence(t, event_ids),
            )
            for c in characters
        ]
        presence = self._ask("presence", asks)
        talkers = []
        for c in characters:
            parsed = presence.get(self._item(index, c, "presence"))
            if parsed is None:
                continue
            self.records[c].presence = parsed.value["presence"]
            self.tables["presence"].append(
                {
                    "film_id": self.film_id,
                    "scene_index": index,
                    "character": c,
                    "status": parsed.value["presence"],
                    "witnessed_events": parsed.value["witnessed"],
                }
            )
            if self.coverage == "paper" or parsed.value["presence"] != "absent_unmentioned":
                talkers.append((c, parsed.value))
        asks = [
            (
                self._item(index, c, "first_order"),
                messages(
                    "first_order",
                    character=c,
                    presence=value["presence"],
                    witnessed=", ".join(value["witnessed"]) or "(none)",
                    belief_state=self.records[c].state_text(),
                    **common,
                ),
                parsers.parse_first_order,
            )
            for c, value in talkers
        ]
        answers = self._ask("first_order", asks)
        for c, _ in talkers:
            parsed = answers.get(self._item(index, c, "first_order"))
            if parsed is not None:
                self.apply_first_order(c, index, parsed, set(event_ids))

    def apply_first_order(self, c: str, index: int, parsed, event_ids: set[str]) -> None:
        """Fold one Table 20 reply into c's record (new tags, false beliefs, revisions)."""
        record, value = self.records[c], parsed.value
        item = self._item(index, c, "first_order")
        for told in value["told"]:
            believed = told["believed"] is not False
            self._add(
                record,
                c,
                index,
                "B",
                "told",
                told["proposition"],
                source=told["source"],
                believed=told["believed"],
                revised_at=None if believed else index + 1,
            )
        for inferred in value["inferred"]:
            basis = self._valid_basis(inferred["basis"], event_ids, index, item)
            self._add(
                record,
                c,
                index,
                "B",
                "inferred",
                inferred["claim"],
                basis=basis,
                confidence=inferred["confidence"],
            )
        held = [r for r in record.active() if r["kind"] == "false"]
        for false in value["false"]:
            if not any(
                fuzz.token_sort_ratio(false["belief"], r["content"]) >= SAME_BELIEF for r in held
            ):
                self._add(record, c, index, "F", "false", false["belief"], is_false=True)
        for revision in value["revisions"]:
            prior = self._find_prior(record, revision)
            if prior is None:
                self._issue(
                    item,
                    "first_order",
                    f"revision prior {revision['prior_text']!r}"
                    " is not in the belief state; kept unlinked",
                )
            else:
                prior["revised_at_scene"] = index
            self._add(
                record,
                c,
                index,
                "B",
                "revised",
                revision["revised_to"],
                basis=self._valid_basis(revision["trigger"], event_ids, index, item),
                revises=prior["belief_id"] if prior else None,
                trigger=", ".join(revision["trigger"]) or None,
            )

    def _find_prior(self, record: Record, revision: dict) -> dict | None:
        if revision["prior_tag"] and revision["prior_tag"] in record.rows:
            return record.rows[revision["prior_tag"]]
        scored = [
            (fuzz.token_sort_ratio(revision["prior_text"], r["content"]), r)
            for r in record.active()
        ]
        best = max(scored, key=lambda pair: pair[0], default=(0, None))
        return best[1] if best[0] >= SAME_BELIEF else None

    def _valid_basis(self, ids: list[str], event_ids: set[str], index: int, item: str) -> list[str]:
        valid = [i for i in ids if i in event_ids or (i.startswith("s_") and int(i[2:]) <= index)]
        for bad in set(ids) - set(valid):
            self._issue(
                item, "first_order", f"basis {bad} is not an event or scene so far; dropped"
            )
        return valid

    def _add(
        self, record: Record, c: str, index: int, letter: str, kind: str, content: str, **extra
    ) -> None:
        tag = record.new_tag(letter)
        record.rows[tag] = row = {
            "film_id": self.film_id,
            "belief_id": tag,
            "holder": c,
            "scene_index": index,
            "kind": kind,
            "content": content,
            "source_character": extra.get("source"),
            "believed": extra.get("believed"),
            "basis": extra.get("basis", []),
            "confidence": extra.get("confidence"),
            "is_false": extra.get("is_false", False),
            "revises": extra.get("revises"),
            "revised_at_scene": extra.get("revised_at"),
            "trigger": extra.get("trigger"),
        }
        self.tables["beliefs"].append(row)

    # -- Table 21 -------------------------------------------------------------------------------
    def meta_beliefs(self, index, lines, events, characters) -> None:
        valid = {e["event_id"] for e in events} | {scene_id(i) for i in range(index + 1)}
        common = {
            "scene_id": scene_id(index),
            "heading": self._heading(index),
            "scene_text": scene_block(lines),
            "events": events_block(events),
            "prior_scenes": ", ".join(scene_id(i) for i in range(max(0, index - 5), index))
            or "(none)",
        }
        asks = []
        for c in characters:
            if self.coverage == "present" and self.records[c].presence not in PERCEIVING:
                continue
            others = [d for d in characters if d != c]
            for number in range(0, len(others), GROUP_SIZE):
                group = others[number : number + GROUP_SIZE]
                held = (
                    "\n".join(f"- about {m['about']}: {m['claim']}" for m in self.records[c].meta)
                    or "(none)"
                )
                asks.append(
                    (
                        self._item(index, c, f"meta{number // GROUP_SIZE + 1}"),
                        messages(
                            "meta", character=c, group=", ".join(group), meta_so_far=held, **common
                        ),
                        lambda t, g=group: parsers.parse_meta(t, g, valid),
                    )
                )
        for item_id, parsed in self._ask("meta", asks).items():
            holder = item_id.split(":")[2]
            for meta in parsed.items:
                self._add_meta(holder, index, meta)

    def _add_meta(self, holder: str, index: int, meta: dict) -> None:
        record = self.records[holder]
        seen = any(
            m["about"] == meta["about"] and fuzz.token_sort_ratio(m["claim"], meta["claim"]) >= 70
            for m in record.meta
        )
        self.meta_counter += 1
        row = {
            "film_id": self.film_id,
            "meta_id": f"M{self.meta_counter}",
            "holder": holder,
            "scene_index": index,
            "change": "changed" if seen else "new",
            "order_depth": 2,
            **meta,
        }
        record.meta.append(row)
        self.tables["meta_beliefs"].append(row)


def check_coverage(coverage: str) -> str:
    """The coverage policy, or ValueError naming the choices."""
    if coverage not in COVERAGES:
        raise ValueError(f"coverage {coverage!r}: expected one of {', '.join(COVERAGES)}")
    return coverage
