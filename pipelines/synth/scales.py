"""The sizes of a synthetic dataset, with the paper-scale figures and where they come from."""

from __future__ import annotations

from dataclasses import dataclass, field

# LF-VideoQA Table 1: question type -> (n, core claims, context claims, cited scenes) per question.
TABLE1_TYPES: dict[str, tuple[int, float, float, float]] = {
    "Q1": (206, 3.0, 1.3, 3.1),
    "Q2": (857, 1.5, 1.8, 4.1),
    "Q3": (325, 1.4, 2.1, 3.4),
    "Q4": (1463, 1.6, 1.2, 3.0),
    "Q5": (128, 1.3, 1.3, 3.2),
    "Q6": (112, 1.2, 1.2, 3.0),
    "Q7": (1151, 2.0, 1.3, 3.0),
    "Q8": (535, 4.1, 1.1, 5.7),
    "N1": (589, 4.7, 1.9, 7.9),
    "N2": (475, 2.5, 1.6, 6.4),
    "N3": (486, 4.0, 1.2, 3.7),
}

# StoryVideoQA Table 6, full set: sitcom 202K (Friends + Big Bang split evenly), drama 65K, movie
# 95K,
# rounded so the total is the paper's 363K.
MCQ_SOURCES_PAPER = {"Friends": 101_000, "BigBang": 101_000, "GOT": 65_000, "Movie": 96_000}


@dataclass(frozen=True)
class SynthScale:
    """How big a synthetic dataset is."""

    name: str
    films: int
    scenes_per_film: int
    characters_per_film: int
    lines_per_scene: int
    subtitles_per_film: int
    type_counts: dict[str, int]
    settings: int
    mcq_per_source: dict[str, int]
    mcq_methods: int
    beliefs_per_character: int = 25
    metas_per_character: int = 8
    events_per_scene: int = 4
    settings_per_question: int | None = None  # None: every setting answers every question
    extra: dict = field(default_factory=dict)

    @property
    def questions(self) -> int:
        return sum(self.type_counts.values())


SCALES: dict[str, SynthScale] = {
    # 94 films x ~120 scenes, 6,327 questions, 33 settings (209k answers, ~800k verdicts),
    # 363k MCQs with 20 methods' predictions.
    "paper": SynthScale(
        name="paper",
        films=94,
        scenes_per_film=120,
        characters_per_film=25,
        lines_per_scene=8,
        subtitles_per_film=1500,
        type_counts={t: v[0] for t, v in TABLE1_TYPES.items()},
        settings=33,
        mcq_per_source=MCQ_SOURCES_PAPER,
        mcq_methods=20,
    ),
    # Ten times the paper: 940 films, 63,270 questions, 330 settings, 3.63M MCQs with
    # 20 methods' predictions; about 90M rows. A lab's 330 settings do not each answer every
    # question: each question is answered by 33 settings drawn for it (the paper's count), so
    # answers and verdicts grow 10x (2.09M answers, ~8M verdicts) like every other table,
    # not 100x.
    "10x": SynthScale(
        name="10x",
        films=940,
        scenes_per_film=120,
        characters_per_film=25,
        lines_per_scene=8,
        subtitles_per_film=1500,
        type_counts={t: 10 * v[0] for t, v in TABLE1_TYPES.items()},
        settings=330,
        settings_per_question=33,
        mcq_per_source={s: 10 * n for s, n in MCQ_SOURCES_PAPER.items()},
        mcq_methods=20,
    ),
    # The same shapes, small enough for a unit test.
    "small": SynthScale(
        name="small",
        films=3,
        scenes_per_film=12,
        characters_per_film=6,
        lines_per_scene=3,
        subtitles_per_film=40,
        type_counts={t: 2 for t in TABLE1_TYPES},
        settings=4,
        mcq_per_source={"Friends": 30, "BigBang": 20, "GOT": 20, "Movie": 30},
        mcq_methods=3,
        beliefs_per_character=4,
        metas_per_character=2,
        events_per_scene=2,
    ),
}
