"""The prompt one participant receives: the discussion as it may see it (blind and anonymous
phases), its memory and the evidence, within its model's context window."""
