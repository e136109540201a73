"""State derived from a parsed file: small named rules over a State."""
