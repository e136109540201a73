"""The engine, in wings layered top to bottom: `council` and `apply` (beyond one turn), `turn`
(one turn of calls and answers), `prompt` (what a participant is sent), `answer` (reading what
it wrote) and `evidence` (what the project shows it)."""
