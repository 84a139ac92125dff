"""The exercises of notebook 04: the right answers and the mistakes each one must catch."""
