"""Question generation and sanity checks (LF-VideoQA §3.2, App. F; StoryMindv2 Table 2).

Quick use::

    from pipelines.qgen import CheckContext, GenerateOptions, check_question, generate
    from pipelines.qgen import run_check_questions

    check_question("At the pier, what does Ann make of Bo's promise?", CheckContext(gold=...))
    options = GenerateOptions("the-keepers-ledger", qtypes=["Q4", "Q7"], n=20, backend="template")
    report = generate(store, options)
    run_id, checks = run_check_questions(store, {"source": ["paper"]})

Modules: `checks` (automatic checks), `question_shape` (anchor, body, leak score),
`name_mentions` (which names a question uses), `entries` (Table 7 belief entries per type),
`context_sets` (Table 6 payload, discard rules), `sampling`, `prompts` (Tables 22–25 templates
and reply schemas), `stages` (applying replies, retirement rules), `template_backend` /
`llm_backend`, `generate` (a run end to end), `check_run` (checks over stored questions),
`analytics` (near-duplicates, UMAP, Self-BLEU, opening frames).
"""

from pipelines.qgen.check_run import run_check_questions
from pipelines.qgen.checks import CheckContext, CheckResult, check_question
from pipelines.qgen.generate import GenerateOptions, GenerationError, generate
from pipelines.qgen.question_shape import leak_score

__all__ = [
    "CheckContext",
    "CheckResult",
    "GenerateOptions",
    "GenerationError",
    "check_question",
    "generate",
    "leak_score",
    "run_check_questions",
]
