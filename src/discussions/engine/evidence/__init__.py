"""Evidence: the ``EVIDENCE:`` requests fulfilled from the project (read, grep, list, git, run),
confined, appended as engine blocks, and quoted into prompts as data."""
