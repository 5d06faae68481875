"""verifier package."""
