"""The StoryVideoQA tables of a synthetic dataset: MCQs and every method's predictions, built as
Arrow tables (most of the paper scale's rows), a chunk at a time.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.synth.scales import SynthScale
from pipelines.synth.vocabulary import random_texts

TOPIC_ELEMENTS = ["C", "A", "L", "CA", "CL", "AL", "CAL"]


def _mcq_sources(scale: SynthScale) -> tuple[np.ndarray, pa.Array]:
    """Each MCQ's source, and its id (built once as Arrow strings: 3.6M ids at 10x)."""
    sources = np.concatenate([np.repeat(src, n) for src, n in scale.mcq_per_source.items()])
    index = pa.array(np.arange(len(sources))).cast(pa.string())
    # "synth:" + source + ":" + index, joined with ":" as the separator
    ids = pc.binary_join_element_wise("synth", pa.array(sources), index, ":")
    return sources, ids


def _mcq_question_chunks(
    rng, sources: np.ndarray, ids: pa.Array, options: np.ndarray, mcqs_per_chunk: int
):
    """Yield `mcq_questions` tables of `mcqs_per_chunk` rows, filling `options` with each MCQ's
    GT option index (the predictions are drawn against it)."""
    letters = np.array(list("ABCDE"))
    topic_p = np.array([0.12, 0.09, 0.07, 0.1, 0.06, 0.05, 0.05])
    for first in range(0, len(sources), mcqs_per_chunk):
        n = min(mcqs_per_chunk, len(sources) - first)
        part = sources[first : first + n]
        texts = random_texts(rng, n, 14)
        choice_sets = [
            [f"{w} ({k})" for k, w in enumerate(t.split()[:5])] for t in random_texts(rng, n, 5)
        ]
        chosen = rng.integers(0, 5, size=n)
        options[first : first + n] = chosen
        elements = rng.choice(TOPIC_ELEMENTS, size=n, p=topic_p / topic_p.sum())
        yield pa.table(
            {
                "mcq_id": ids.slice(first, n),
                "set_name": pa.array(["synthetic"] * n),
                "source": part.tolist(),
                "vid": [f"{src}-V{i % 40:02d}" for i, src in enumerate(part, start=first)],
                "qid": np.arange(first, first + n),
                "question": [t + "?" for t in texts],
                "choices": choice_sets,
                "gt": [c[o] for c, o in zip(choice_sets, chosen)],
                "option": letters[chosen].tolist(),
                "question_type": rng.choice(["P", "I"], size=n).tolist(),
                "story_element": elements.tolist(),
                "characters": [["Ann"]] * n,
                "locations": [["Cafe"]] * n,
                "times": [["00:01:00-00:01:20"]] * n,
            }
        )


def _mcq_prediction_chunks(rng, scale: SynthScale, options: np.ndarray, ids: pa.Array):
    """Yield one `mcq_predictions` table per method (dictionary-encoded: ids are not repeated)."""
    accuracy = np.linspace(
        0.2, 0.76, scale.mcq_methods
    )  # StoryVideoQA §6.2: VLMs < 23%, MLLMs up to 76%
    n = len(options)
    mcq_index = pa.array(np.arange(n, dtype=np.int32))
    letters = pa.array(list("ABCDE"))
    for m in range(scale.mcq_methods):
        correct = rng.random(n) < accuracy[m]
        wrong = (options + rng.integers(1, 5, size=n)) % 5
        predicted = np.where(correct, options, wrong).astype(np.int32)
        yield pa.table(
            {
                "mcq_id": pa.DictionaryArray.from_arrays(mcq_index, ids),
                "method": pa.DictionaryArray.from_arrays(
                    pa.array(np.zeros(n, dtype=np.int32)), pa.array([f"method-{m:02d}"])
                ),
                "predicted_option": pa.DictionaryArray.from_arrays(pa.array(predicted), letters),
            }
        )


def write_mcq_tables(rng, scale: SynthScale, sinks: dict, mcqs_per_chunk: int) -> None:
    """Write `mcq_questions`, then `mcq_predictions` (drawn against the questions' options)."""
    sources, ids = _mcq_sources(scale)
    options = np.empty(len(sources), dtype=np.int32)
    for table in _mcq_question_chunks(rng, sources, ids, options, mcqs_per_chunk):
        sinks["mcq_questions"].write(table)
    for table in _mcq_prediction_chunks(rng, scale, options, ids):
        sinks["mcq_predictions"].write(table)
