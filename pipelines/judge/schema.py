"""The JSON schema the judge asks the endpoint for, sized to the rubric.

`JudgeReply`'s own schema lets a reply hold any number of labels. Under a grammar (llama.cpp,
vLLM guided decoding) a small model then often stops early or repeats itself; pinning the
array to exactly as many items as the rubric has claims, the claim number to the rubric's
numbers and the label to the three verdicts makes the grammar do that bookkeeping. Replies
are still validated by `JudgeReply` and `checked_labels`, whatever the server enforced.
"""

from __future__ import annotations

from functools import lru_cache

from pipelines.judge.prompt import VERDICTS

# A one-sentence rationale (App. F.2); bounded so a grammar-driven model cannot ramble until
# the token limit cuts the JSON short.
RATIONALE_MAX_CHARS = 200


@lru_cache(maxsize=64)
def judge_reply_schema(claim_ords: tuple[int, ...]) -> dict:
    """JSON schema of a reply labelling exactly the claims `claim_ords` (one shared dict each)."""
    n = len(claim_ords)
    label = {
        "type": "object",
        "properties": {
            "claim": {"type": "integer", "enum": list(claim_ords)},
            "label": {"type": "string", "enum": list(VERDICTS)},
            "rationale": {"type": "string", "maxLength": RATIONALE_MAX_CHARS},
        },
        "required": ["claim", "label", "rationale"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"verdicts": {"type": "array", "items": label, "minItems": n, "maxItems": n}},
        "required": ["verdicts"],
        "additionalProperties": False,
    }
