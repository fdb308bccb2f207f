"""PlotTree (StoryVideoQA §5): leaves from a film's aligned text timeline, hierarchical
condensation under the paper's plot distance, top-M retrieval and QA through the gateway.

- `leaves.build_leaves`: leaves from subtitles + script directions, one per timed scene (else
  per subtitle clip; fixed windows, e.g. 1 fps, on request), credits dropped (`leaf_units`).
- `condense.build_tree`: K^l clusters under D^l with λ(l) decay, parent summaries, root.
- `build.build_film_tree`: store in, store out (nodes + MiniLM vectors under one run).
- `ask.ask`: retrieval (+ answer with an LLM config), stored in plottree_retrievals.
"""
