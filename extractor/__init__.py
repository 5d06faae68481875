"""extractor package."""
