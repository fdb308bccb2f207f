"""Plot condensation through the LLM gateway (StoryVideoQA §5.1, Figure 16).

Each cluster's children, sorted by time, are sent as one request; the reply is a single more
abstract plot summary. At level 0 the children carry characters and dialogue (the red parts of
Figure 16); higher levels send summaries only. A failed request falls back to the extractive
summary for that cluster, and the node is labelled with that backend, never as model output.
"""

from __future__ import annotations

import numpy as np

from pipelines.plottree.condense import EXTRACTIVE_BACKEND, Node, extractive_summary

SYSTEM = (
    "You summarise stories. Given the plot descriptions of consecutive moments of a video, "
    "in time order, write one concise, coherent plot summary of what happens, naming the "
    "characters. Plain text, at most 120 words."
)


def condense_messages(children: list[Node]) -> list[dict]:
    """The chat messages for one cluster."""
    lines = []
    for child in children:
        stamp = f"[{child.start_s / 60:.1f}-{child.end_s / 60:.1f} min]"
        lines.append(f"{stamp} {child.summary}")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Plot descriptions:\n" + "\n".join(lines) + "\n\nSummary:"},
    ]


def _text(reply: str) -> str:
    text = reply.strip()
    if not text:
        raise ValueError("empty summary")
    return text


def gateway_summariser(store, config, run_id: str):
    """A Summariser that condenses each cluster through the gateway under `run_id`."""
    from pipelines.llm import Gateway, LLMRequest

    gateway = Gateway(store, config, run_id)
    counter = {"level": 0}

    def summarise(clusters: list[list[Node]], vectors: list[np.ndarray]):
        counter["level"] += 1
        requests = [
            LLMRequest(
                item_id=f"L{counter['level']}-{j}",
                messages=condense_messages(c),
                parse=_text,
                params={"temperature": 0},
            )
            for j, c in enumerate(clusters)
        ]
        results = gateway.run(requests)
        summaries, fell_back = [], False
        for result, nodes, vecs in zip(results, clusters, vectors):
            if result.ok:
                summaries.append(result.parsed)
            else:
                summaries.append(extractive_summary([n.summary for n in nodes], vecs))
                fell_back = True
        backend = f"llm:{config.model}" + (f"+{EXTRACTIVE_BACKEND}" if fell_back else "")
        return summaries, backend

    return summarise
