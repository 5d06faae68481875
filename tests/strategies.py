"""Shared Hypothesis strategies."""

from __future__ import annotations

from hypothesis import strategies as st

article_numbers = st.integers(min_value=1, max_value=9999)

chat_messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant"]), "content": st.text(max_size=200)}
    ),
    min_size=1,
    max_size=4,
)
"""Chat-completions message lists as {role, content} dicts, with any Unicode content."""
