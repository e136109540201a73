"""The engine, in wings layered top to bottom: `runner` (the runner people make, with the
after-answer steps every turn runs), `apply` and `council` (beyond one turn), `turn` (one turn
of calls and answers, and what the wings above ask of it), `prompt` (what a participant is
sent) and `evidence` (what the project shows it). Reading what a participant wrote is pure:
`syntax.answers`."""
