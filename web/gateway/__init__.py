"""The OpenAI-compatible gateway: any chat app's model, gated by LexGate (docs/gateway.md)."""

from web.gateway.app import create_gateway_app

__all__ = ["create_gateway_app"]
