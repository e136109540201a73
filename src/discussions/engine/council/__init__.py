"""The council beyond one turn: motions and sealed ballots, running to a decision (the chair),
the documentation loop, conformance reviews and narrated texts."""
