"""The exercises of notebook 07: the right answers and the mistakes each one must catch."""
