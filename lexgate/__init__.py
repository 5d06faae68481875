"""LexGate: checks statute citations in legal QA answers before they are delivered.

This package holds only the edges shared by all others: the settings and the root CLI.
"""

__version__ = "0.1.0"
