"""Video pipelines: frames sampled from a film's registered video (`sampling`), 10-second chunk
captions through the LLM gateway (`captions`) and the sample film's animatic (`animatic`).
docs/VIDEO.md has the commands, the cache and the captioner prompt."""
