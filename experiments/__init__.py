"""Experiments: configs that ask a question, the grid runner, and the command line."""
