"""The exercises of notebook 02: the right answers and the mistakes each one must catch."""
