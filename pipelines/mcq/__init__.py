"""StoryVideoQA analytics: topic balance, reviewer voting, difficulty (BERTScore), predictions,
and the StoryMindv2 generation loop (StoryVideoQA paper §3)."""
