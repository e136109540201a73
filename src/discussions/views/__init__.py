"""Presentation of a discussion shared by the interfaces and the exports."""
