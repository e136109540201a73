"""The hosted APIs' own roots, used when a providers.yaml entry names no ``base_url`` (read by
the kinds for listings and by the clients for calls; kept here so neither imports the other)."""

ANTHROPIC_URL = "https://api.anthropic.com/v1"
"""Anthropic's Messages API."""
GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta"
"""Google's Gemini API."""
