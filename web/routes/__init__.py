"""One APIRouter per file; `web.app.create_app` includes them all."""
