"""The exercises of notebook 05: the right answers and the mistakes each one must catch."""
