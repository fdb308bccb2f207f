"""The content of the app fixture: one small original film ("The Lighthouse Keeper", 60 minutes,
6 scenes, 3 characters), its beliefs, questions, verdicts, MCQs and plot tree, plus the ids page
tests look rows up by.

The numbers below are the ones the page tests assert, so change them together with the tests;
app_fixtures.py writes them into a store (`build_app_fixture`). Nothing here is real or
copyrighted data.
"""

from __future__ import annotations

FILM = "lighthouse"
STORY = "tom-story-1"
DATASET = "fixture"
CHARACTERS = ["Ann", "Ben", "Cara"]

# (scene, heading, location, start, end, time_source)
SCENES = [
    (0, "EXT. LIGHTHOUSE - DAY", "Lighthouse", 0.0, 300.0, "matched"),
    (1, "INT. KITCHEN - NIGHT", "Kitchen", 300.0, 900.0, "matched"),
    (2, "EXT. HARBOUR - DAY", "Harbour", 900.0, 1500.0, "interpolated"),
    (3, "INT. LAMP ROOM - NIGHT", "Lamp Room", 1500.0, 2400.0, "matched"),
    (4, "EXT. JETTY - DAWN", "Jetty", 2400.0, 3000.0, "interpolated"),
    (5, "INT. KITCHEN - DAY", "Kitchen", 3000.0, 3600.0, "matched"),
]
RUNTIME_S = 3600.0

# who is where: scene -> {character: status}
PRESENCE = {
    0: {"Ann": "on_screen", "Ben": "on_screen", "Cara": "absent_unmentioned"},
    1: {"Ann": "on_screen", "Ben": "on_screen", "Cara": "offscreen_aware"},
    2: {"Ann": "on_screen", "Ben": "absent_unmentioned", "Cara": "on_screen"},
    3: {"Ann": "on_screen", "Ben": "offscreen_unaware", "Cara": "on_screen"},
    4: {"Ann": "on_screen", "Ben": "on_screen", "Cara": "absent_unmentioned"},
    5: {"Ann": "on_screen", "Ben": "on_screen", "Cara": "on_screen"},
}

# belief_id, holder, scene, kind, content, source, believed, is_false, revises, revised_at
BELIEFS = [
    ("B1", "Ann", 0, "witnessed", "The lamp is broken.", None, None, False, None, None),
    ("F1", "Ann", 1, "told", "The supply boat comes on Friday.", "Ben", True, True, None, 4),
    ("B2", "Ann", 4, "revised", "The supply boat was cancelled.", None, None, False, "F1", None),
    ("B3", "Ann", 2, "inferred", "Cara took the spare key.", None, None, False, None, None),
    ("T1", "Ann", 3, "told", "The storm will pass by morning.", "Cara", False, False, None, None),
    ("B1", "Ben", 1, "witnessed", "The supply boat was cancelled.", None, None, False, None, None),
    ("F2", "Ben", 2, "false", "Ann fixed the lamp.", None, None, True, None, 5),
    ("B3", "Ben", 5, "revised", "Cara fixed the lamp.", None, None, False, "F2", None),
    (
        "B1",
        "Cara",
        2,
        "witnessed",
        "Ann is looking for the spare key.",
        None,
        None,
        False,
        None,
        None,
    ),
]

# meta_id, holder, about, scene, claim, type, change, source
META_BELIEFS = [
    (
        "M1",
        "Ann",
        "Ben",
        1,
        "Ben believes Ann trusts the boat schedule.",
        "first_order_about_d",
        "new",
        "told",
    ),
    (
        "M2",
        "Ann",
        "Ben",
        4,
        "Ben knows Ann found out about the cancelled boat.",
        "first_order_about_d",
        "changed",
        "witnessed",
    ),
    ("M3", "Cara", "Ann", 3, "Ann believes Cara has the key.", "about_self", "new", "inferred"),
]

# question_id, qtype, center, anchor scene, status, text, gold, claims [(role, text, scenes)]
QUESTIONS = [
    (
        "q1",
        "Q3",
        "Ann",
        4,
        "released",
        "On the jetty, what does Ann believe about the supply boat?",
        "Ann believes the boat comes on Friday because Ben told her; it was cancelled.",
        [
            ("core", "Ann believes the supply boat comes on Friday.", [1]),
            ("core", "Ben told Ann about the supply boat.", [1]),
            ("context", "The supply boat was cancelled.", [4]),
        ],
    ),
    (
        "q2",
        "N2",
        "Ben",
        5,
        "candidate",
        "In the kitchen, how has Ben's view of Cara changed since the harbour?",
        "Ben first credits Ann with the repair, then learns Cara fixed the lamp.",
        [
            ("core", "Ben believes Ann fixed the lamp.", [2]),
            ("context", "Ben learns Cara fixed the lamp.", [5]),
        ],
    ),
    (
        "q3",
        "Q1",
        "Cara",
        3,
        "retired",
        "In the lamp room, what do Ann and Cara each know about the key?",
        "Cara knows Ann is looking for the key; Ann thinks Cara has it.",
        [
            ("core", "Cara knows Ann is looking for the spare key.", [2]),
            ("core", "Ann thinks Cara took the key.", [2, 3]),
        ],
    ),
]

SETTINGS = [
    ("screenplay-qwen", "screenplay", "Qwen3.6", None, None, "Screenplay / Qwen3.6"),
    ("subs-qwen", "subtitles", "Qwen3.6", None, None, "Subtitles / Qwen3.6"),
]
JUDGE_LEXICAL = "lexical-overlap"
JUDGE_LLM = "llm-gpt-test"

# verdicts by (question, setting) for the lexical run; claims in rubric order
LEXICAL_VERDICTS = {
    ("q1", "screenplay-qwen"): ["asserted", "asserted", "omitted"],
    ("q1", "subs-qwen"): ["asserted", "omitted", "contradicted"],
    ("q2", "screenplay-qwen"): ["asserted", "asserted"],
    ("q2", "subs-qwen"): ["contradicted", "omitted"],
    ("q3", "screenplay-qwen"): ["asserted", "omitted"],
    ("q3", "subs-qwen"): ["omitted", "omitted"],
}
# the LLM run flips these (question, setting, claim ord) to the given verdict
LLM_FLIPS = {("q1", "subs-qwen", 2): "asserted", ("q2", "subs-qwen", 1): "asserted"}

# MCQ (StoryVideoQA): (qid, type, element, option, difficulty d)
MCQS = [
    (1, "P", "C", "A", 0.10),
    (2, "P", "A", "B", 0.20),
    (3, "P", "L", "C", 0.30),
    (4, "I", "CA", "D", 0.45),
    (5, "I", "CL", "A", 0.55),
    (6, "I", "AL", "B", 0.70),
    (7, "I", "CAL", "C", 0.85),
    (8, "P", "CAL", "D", 0.95),
]
# method -> set of qids answered correctly
MCQ_CORRECT = {"plottree": {1, 2, 3, 4, 6}, "random": {2, 7}}

# PlotTree: node_id, parent, level, start, end, leaves, summary, characters
PLOTTREE = [
    (
        "root",
        None,
        2,
        0.0,
        3600.0,
        [0, 1, 2, 3],
        "A keeper waits for a boat that never comes.",
        ["Ann", "Ben", "Cara"],
    ),
    (
        "n1_0",
        "root",
        1,
        0.0,
        1500.0,
        [0, 1],
        "The lamp breaks and the boat is promised.",
        ["Ann", "Ben"],
    ),
    (
        "n1_1",
        "root",
        1,
        1500.0,
        3600.0,
        [2, 3],
        "The key, the storm and the cancelled boat.",
        ["Ann", "Ben", "Cara"],
    ),
    ("n0_0", "n1_0", 0, 0.0, 300.0, [0], "Ann finds the lamp broken.", ["Ann", "Ben"]),
    (
        "n0_1",
        "n1_0",
        0,
        300.0,
        1500.0,
        [1],
        "Ben says the supply boat comes Friday.",
        ["Ann", "Ben"],
    ),
    (
        "n0_2",
        "n1_1",
        0,
        1500.0,
        2400.0,
        [2],
        "Cara warns of a storm; Ann doubts her.",
        ["Ann", "Cara"],
    ),
    (
        "n0_3",
        "n1_1",
        0,
        2400.0,
        3600.0,
        [3],
        "At the jetty Ann learns the boat was cancelled.",
        ["Ann", "Ben"],
    ),
]

# reported figures (transcribed, like the paper's Table 3) for the screenplay setting
REPORTED = [
    ("screenplay-qwen", None, "f1", 0.61, 0.02),
    ("screenplay-qwen", None, "recall", 0.58, None),
]


# Question Lab (G's m0400 tables): q1 passes; q2 reveals how the center learned; q3 leaks the
# gold and names a character not yet named on screen. q1 and q3 are near-duplicates.
CHECK_FAILURES = [
    ("q2", "no_reveal", "reveals how the center character learned it"),
    ("q3", "leak", "leak score 0.62 ≥ 0.5"),
    ("q3", "forbidden_names", "names Cara before the film names her"),
]
