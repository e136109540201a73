"""The turn: who answers, their calls made at once, each answer posted into the record, and the
after-answer steps (evidence, the council, the phase rules) a turn runs."""
