"""The audit trail: every gated answer recorded, and quarterly evidence packs.

`record` (a round) / `record_result` (one evaluation) store a gated answer with personal data
masked (`mask_pii`) and ids pseudonymised (`Pseudonymizer`, mapping kept in `MappingStore`);
`trace` resolves a pseudonym back on the server; `export_pack` writes a quarter's pack and
`verify_pack` checks one received.
"""

from typing import TYPE_CHECKING

from textnorm.lazy import lazy_exports

if TYPE_CHECKING:
    from audit.export import export_pack
    from audit.mapping_store import MappingStore
    from audit.masking import mask_pii
    from audit.pack import verify_pack
    from audit.pseudonyms import Pseudonymizer
    from audit.recorder import record, record_many, record_result, trace

__all__ = [
    "MappingStore",
    "Pseudonymizer",
    "export_pack",
    "mask_pii",
    "record",
    "record_many",
    "record_result",
    "trace",
    "verify_pack",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "audit.export": ("export_pack",),
        "audit.mapping_store": ("MappingStore",),
        "audit.masking": ("mask_pii",),
        "audit.pack": ("verify_pack",),
        "audit.pseudonyms": ("Pseudonymizer",),
        "audit.recorder": ("record", "record_many", "record_result", "trace"),
    },
)
