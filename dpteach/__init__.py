"""dpteach: learn sensitivity in differential privacy by running it."""
