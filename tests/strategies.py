"""Shared Hypothesis strategies."""

from __future__ import annotations

from hypothesis import strategies as st

article_numbers = st.integers(min_value=1, max_value=9999)
