"""HTML form bodies (application/x-www-form-urlencoded), read without a multipart parser."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from fastapi import Request

from web.errors import InvalidInput

FORM_BYTES_PER_CHAR = 9
"""The most one character of a text field costs in a form body: a Chinese character is three
UTF-8 bytes, each sent as %XX (an emoji, two characters to the browser, costs 12)."""
FORM_OVERHEAD_BYTES = 1024
"""Room for the field names, the date and the separators."""
QUESTION_MAX_CHARS = 1000


@dataclass(frozen=True, slots=True)
class FormLimits:
    """How many characters the check form's fields take, so that a form within them is never
    refused for its size (413), whatever the characters."""

    answer_chars: int
    question_chars: int
    max_body_bytes: int


def form_limits(max_body_bytes: int) -> FormLimits:
    """The check form's limits within LEXGATE_WEB_MAX_BODY_BYTES, every character counted as
    the dearest (FORM_BYTES_PER_CHAR)."""
    total = max(0, (max_body_bytes - FORM_OVERHEAD_BYTES) // FORM_BYTES_PER_CHAR)
    question = min(QUESTION_MAX_CHARS, total // 10)
    return FormLimits(total - question, question, max_body_bytes)


async def read_form(request: Request) -> dict[str, str]:
    """The form's fields (the last value of each); 422 for a body that is not UTF-8."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("表单内容不是 UTF-8 文本", field="body") from None
    try:
        fields = parse_qs(text, keep_blank_values=True, max_num_fields=50)
    except ValueError:
        raise InvalidInput("表单字段过多", field="body") from None
    return {name: values[-1] for name, values in fields.items()}
