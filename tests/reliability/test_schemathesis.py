"""schemathesis against the OpenAPI schema: no 5xx, and every response conforms to it."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from lexgate.settings import Settings
from tests.reliability.conftest import TestClient, bearer
from web import create_app

# The operations, read from the schema of an app that is never started (no database needed).
OPERATIONS = [
    (method.upper(), path)
    for path, item in create_app(Settings(database_url="sqlite://")).openapi()["paths"].items()
    for method in item
]
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_operation_conforms_to_the_schema(
    gate_client: TestClient, gate_keys: dict[str, str], method: str, path: str
) -> None:
    """Generated requests (admin key) never get a 5xx, and their replies conform to the schema."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", gate_client.app)
    operation = schema[path][method]
    headers = bearer(gate_keys["admin"])

    @given(case=operation.as_strategy())
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    def call(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS)

    call()
