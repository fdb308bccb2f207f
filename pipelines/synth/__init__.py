"""Synthetic datasets in the interchange format, at the papers' scale, for benchmarks.

The numbers come from the papers: LF-VideoQA Table 1 (questions per type, core / context claims
and cited scenes per type), §3.1 (94 films), App. G (33 settings); StoryVideoQA Table 6 (363K
QAs: 202K sitcom, 65K drama, 95K movie) and §6 (20 evaluated methods). The content is random
words: the data exercises sizes and shapes, never meaning, and every dataset is labelled
`synthetic`.
"""

from pipelines.synth.paper_scale import write_synthetic_dataset
from pipelines.synth.scales import SCALES, SynthScale

__all__ = ["SCALES", "SynthScale", "write_synthetic_dataset"]
