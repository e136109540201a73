"""A discussion file and folders of them: reading, appending, records across files."""
