"""Reading what a model answered: the answer format, the markers it carries, and the lines of
its prompt it merely repeats (echoes)."""
