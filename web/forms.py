"""HTML form bodies (application/x-www-form-urlencoded), read without a multipart parser."""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import Request

from web.errors import InvalidInput


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
