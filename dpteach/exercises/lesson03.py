"""The exercises of notebook 03: the right answers and the mistakes each one must catch."""
