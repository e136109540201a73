"""Turns, rounds, the council, phase rules, watching and the shared service."""
