"""The belief annotation prompts (LF-VideoQA App. D, Tables 18–21) as versioned templates.

The tables print each prompt's rules and strict output format; those are reproduced in
`pipelines/prompts/beliefs_*_v1.txt` (typography normalised to ASCII). The opening instruction
paragraph and the "Input Information" block are ours, written from App. D's description (the
scene, its events and the record so far). As in App. J, the instructions and rules form the
system prompt and the input block the user prompt. A wording change means a new version file.

beliefs-v2: the meta-belief template (Table 21) carries Table 21's WORKED EXAMPLE again (Rosa,
Dev and Priya; v1 had dropped it). The other three stages are unchanged (their v1 files).

Meta-belief bases: the paper is not consistent with itself. App. D's prose says "Each
meta-belief must cite an event of the scene and is discarded otherwise"; Table 21 allows an
event of this scene, *this scene's id* when no discrete event fits, and for d_absence the
*prior* scene id where the missed event happened; and Table 21's own worked example grounds
its d_absence item on this scene's id (s_042), not a prior one. We follow Table 21 (the prompt
the model received): `llm.parsers.parse_meta` keeps an item whose basis is an event of this
scene or any scene id up to this one, and drops the rest (reported as parse issues).
"""

from __future__ import annotations

from importlib import resources
from string import Template

PROMPT_VERSION = "beliefs-v2"
STAGES = {
    "events": "beliefs_events_v1.txt",
    "presence": "beliefs_presence_v1.txt",
    "first_order": "beliefs_first_order_v1.txt",
    "meta": "beliefs_meta_v2.txt",
}
TABLES = {
    "events": "Table 18",
    "presence": "Table 19",
    "first_order": "Table 20",
    "meta": "Table 21",
}


def template(stage: str) -> str:
    """The template text of one stage."""
    return resources.files("pipelines").joinpath("prompts", STAGES[stage]).read_text()


def messages(stage: str, **values: str) -> list[dict]:
    """System + user messages of one stage with its inputs filled in."""
    head, rest = template(stage).split("# Input Information", 1)
    inputs, rules = rest.split("# Rules", 1)
    user = Template(inputs.strip()).substitute(values)
    return [
        {"role": "system", "content": head.strip() + "\n\n" + rules.strip()},
        {"role": "user", "content": user},
    ]


def scene_block(lines) -> str:
    """A scene's script lines in Table 15's event format."""
    out = []
    for line in lines:
        if line.kind == "dialogue":
            out.append(f"- DIALOGUE | {line.character} | {line.parenthetical or '-'} | {line.text}")
        else:
            out.append(f"- DIRECTION: {line.text}")
    return "\n".join(out) or "(no lines)"


def events_block(events: list[dict]) -> str:
    """Canonical events as the later stages see them."""
    if not events:
        return "(no events)"
    return "\n".join(
        f"{e['event_id']}: {e['description']} | participants:"
        f" {', '.join(e['participants']) or '(none)'} | witnesses:"
        f" {', '.join(e['witnesses']) or '(none)'}"
        for e in events
    )
