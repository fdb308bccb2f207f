"""The judge prompt (LF-VideoQA App. F.2 / Table 26) as a versioned template, and its reply.

Table 26's text is not reproduced in our copy of the paper, so the templates are written from
App. F.2's description of the judge. `judge-claims-v2` (the default) states only F.2's rules:
label every rubric claim asserted / contradicted / omitted, judging only against the answer's
text; content beyond the rubric is not graded; an answer that declines omits every claim.
`judge-claims-v1` (a named variant) adds rules of ours: hedges omit unless the claim is hedged,
"vaguely or partially" counts as omitted, several-part claims need every part, and the judge
sees each claim's role (core / context). docs/JUDGE.md lists which rule comes from where.
Changing a template means a new version file: the judge's name is model + prompt version, so
old verdicts stay comparable. The gold self-check (`judge --gold`) renders the same template.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Literal

from pydantic import BaseModel, Field

PROMPT_VERSION = "judge-claims-v2"
_TEMPLATE_FILES = {
    "judge-claims-v1": "judge_claims_v1.txt",
    "judge-claims-v2": "judge_claims_v2.txt",
}
# F.2 does not say the judge sees claim roles; only our v1 shows them.
_SHOWS_ROLES = {"judge-claims-v1": True, "judge-claims-v2": False}
PROMPT_VERSIONS = tuple(_TEMPLATE_FILES)
VERDICTS = ("asserted", "contradicted", "omitted")


class ClaimLabel(BaseModel):
    claim: int = Field(ge=1)
    label: Literal["asserted", "contradicted", "omitted"]
    rationale: str = ""


class JudgeReply(BaseModel):
    """The reply the judge must return: one label per rubric claim."""

    verdicts: list[ClaimLabel]


def template(version: str = PROMPT_VERSION) -> str:
    """The prompt template text of a version."""
    return _template_text(check_version(version))


@functools.cache
def _template_text(version: str) -> str:
    # read once per process: every judged answer renders its prompt from it (reading the file
    # per answer was 36 us of the client's ~1.4 ms per call in bench_judge.py)
    return resources.files("pipelines").joinpath("prompts", _TEMPLATE_FILES[version]).read_text()


def check_version(version: str) -> str:
    """The version, or ValueError naming the known ones."""
    if version not in _TEMPLATE_FILES:
        raise ValueError(
            f"unknown judge prompt version {version!r}; known: {', '.join(_TEMPLATE_FILES)}"
        )
    return version


def render_claims(claims: list[dict], show_roles: bool = True) -> str:
    """Numbered claim lines, `1. [core] Miss Crane knows ...` (or without the role)."""
    if not show_roles:
        return "\n".join(f"{c['ord']}. {c['text']}" for c in claims)
    return "\n".join(f"{c['ord']}. [{c['role']}] {c['text']}" for c in claims)


def message_templates(version: str = PROMPT_VERSION) -> tuple[str, str]:
    """The judge's system prompt and its user prompt with `{question}`, `{claims}` and
    `{answer}` slots (what `judge_messages` fills; the exported inspect scorer fills the same).

    As in App. J, the first paragraph and the rules form the system prompt and the
    "Input Information" block is the user prompt.
    """
    text = template(version)
    head, rest = text.split("# Input Information", 1)
    inputs, rules = rest.split("# Labels", 1)
    return head.strip() + "\n\n# Labels" + rules.rstrip(), inputs.strip()


def shows_roles(version: str = PROMPT_VERSION) -> bool:
    """Whether the version shows each claim's role (core / context) to the judge."""
    return _SHOWS_ROLES[check_version(version)]


def judge_messages(
    question: str, claims: list[dict], answer: str, version: str = PROMPT_VERSION
) -> list[dict]:
    """Chat messages for one answer: instructions as system prompt, the inputs as user prompt."""
    system, user = message_templates(version)
    claim_lines = render_claims(claims, show_roles=_SHOWS_ROLES[version])
    return [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": user.format(question=question, claims=claim_lines, answer=answer),
        },
    ]


def checked_labels(claim_ords: list[int]):
    """A parse hook: the reply must label each rubric claim exactly once."""
    expected = sorted(claim_ords)

    def check(reply: JudgeReply) -> dict[int, ClaimLabel]:
        got = sorted(v.claim for v in reply.verdicts)
        if got != expected:
            raise ValueError(f"malformed reply: claims labelled {got}, expected {expected}")
        return {v.claim: v for v in reply.verdicts}

    return check
