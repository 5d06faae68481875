"""Keyed pseudonyms: stable, separated by kind and secret, the secret never shown."""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import stat
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import SecretStr

from audit import MappingStore
from audit.errors import InsecureFileError, PseudonymError, SecretMissingError
from audit.models import PseudonymKind
from audit.pseudonyms import Pseudonymizer, parse_pseudonym
from lexgate.factories import pseudonymizer_from_settings
from lexgate.settings import Settings

SECRET = b"a deployment secret of 32 bytes!"
OTHER_SECRET = b"another deployment secret, 32 b!"
raw_ids = st.text(min_size=1, max_size=64)
kinds = st.sampled_from(list(PseudonymKind))


@given(kind=kinds, raw_id=raw_ids)
def test_pseudonym_is_stable_and_well_formed(kind: PseudonymKind, raw_id: str) -> None:
    """The same (kind, id) always gives the same subj_k1_<32 hex> pseudonym, even anew."""
    first = Pseudonymizer(SECRET, "k1").pseudonym(kind, raw_id)
    assert first == Pseudonymizer(SECRET, "k1").pseudonym(kind, raw_id)
    assert parse_pseudonym(first) == (kind.value, "k1")
    assert first.startswith(f"{kind.value}_k1_")
    assert len(first.rsplit("_", 1)[1]) == 32


def test_pseudonym_follows_the_documented_scheme() -> None:
    """HMAC-SHA256(secret, 'lexgate-pseudonym-v1' NUL kind NUL id), first 32 hex characters."""
    message = b"lexgate-pseudonym-v1\x00sess\x00" + "会话-42".encode()
    expected = hmac.new(SECRET, message, hashlib.sha256).hexdigest()[:32]
    assert Pseudonymizer(SECRET, "k1").pseudonym("sess", "会话-42") == f"sess_k1_{expected}"


@given(raw_id=raw_ids)
def test_same_id_in_another_kind_gets_another_pseudonym(raw_id: str) -> None:
    """A subject id and a session id that happen to be equal stay unlinkable."""
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    subject = pseudonymizer.pseudonym(PseudonymKind.SUBJECT, raw_id)
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION, raw_id)
    assert subject.rsplit("_", 1)[1] != session.rsplit("_", 1)[1]


@given(kind=kinds, raw_id=raw_ids)
def test_another_secret_gives_another_pseudonym(kind: PseudonymKind, raw_id: str) -> None:
    """Without this deployment's secret nobody computes its pseudonyms."""
    ours = Pseudonymizer(SECRET, "k1").pseudonym(kind, raw_id)
    theirs = Pseudonymizer(OTHER_SECRET, "k1").pseudonym(kind, raw_id)
    assert ours != theirs


@given(kind=kinds, first=raw_ids, second=raw_ids)
def test_different_ids_get_different_pseudonyms(
    kind: PseudonymKind, first: str, second: str
) -> None:
    """Two ids never share a pseudonym (including ids that differ by a NUL or a kind prefix)."""
    assume(first != second)
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    assert pseudonymizer.pseudonym(kind, first) != pseudonymizer.pseudonym(kind, second)


def test_domain_separation_is_not_fooled_by_nul() -> None:
    """('ab', 'c') and ('a', 'b\\x00c')-style splits cannot collide: kinds are letters only."""
    pseudonymizer = Pseudonymizer(SECRET, "k1")
    assert pseudonymizer.pseudonym("subj", "x\x00y") != pseudonymizer.pseudonym("subj", "x")
    with pytest.raises(PseudonymError):
        pseudonymizer.pseudonym("subj\x00x", "y")


def test_secret_never_appears_in_repr_str_or_scheme() -> None:
    """repr, str and the pack's scheme name the key id, never the key; pickling is refused."""
    pseudonymizer = Pseudonymizer(SECRET, "k7")
    shown = repr(pseudonymizer) + str(pseudonymizer) + repr(pseudonymizer.scheme)
    assert SECRET.decode() not in shown
    assert SECRET.hex() not in shown
    assert "k7" in shown
    assert pseudonymizer.scheme.key_id == "k7"
    with pytest.raises(TypeError):
        pickle.dumps(pseudonymizer)


def test_settings_hide_the_secret() -> None:
    settings = Settings(audit_secret=SecretStr("s3cret-value-of-the-deployment"))
    assert "s3cret-value-of-the-deployment" not in repr(settings)
    assert "s3cret-value-of-the-deployment" not in str(settings.model_dump())


@pytest.mark.parametrize(
    ("secret", "key_id"),
    [(b"short", "k1"), (SECRET, ""), (SECRET, "K1"), (SECRET, "k_1"), (SECRET, "k" * 17)],
    ids=["short-secret", "empty-key-id", "upper-key-id", "underscore-key-id", "long-key-id"],
)
def test_unusable_secret_or_key_id_refused(secret: bytes, key_id: str) -> None:
    with pytest.raises(PseudonymError):
        Pseudonymizer(secret, key_id)


@pytest.mark.parametrize(
    ("kind", "raw_id"),
    [("s", "1"), ("Subj", "1"), ("su bj", "1"), ("subj", "")],
    ids=["one-letter-kind", "upper-kind", "space-kind", "empty-id"],
)
def test_unusable_kind_or_id_refused(kind: str, raw_id: str) -> None:
    with pytest.raises(PseudonymError):
        Pseudonymizer(SECRET, "k1").pseudonym(kind, raw_id)


@pytest.mark.parametrize(
    "text",
    ["subj_k1_abc", "subj_k1_" + "g" * 32, "subj_K1_" + "a" * 32, "subj-k1-" + "a" * 32, ""],
    ids=["short-digest", "not-hex", "upper-key", "dashes", "empty"],
)
def test_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(PseudonymError):
        parse_pseudonym(text)


def test_from_settings_uses_the_configured_secret(tmp_path: Path) -> None:
    secret = "configured-secret-0123456789abcdef"
    settings = Settings(
        audit_secret=SecretStr(secret),
        audit_key_id="k2",
        mapping_store_path=tmp_path / "map.sqlite3",
    )
    pseudonymizer = pseudonymizer_from_settings(settings)
    expected = Pseudonymizer(secret.encode(), "k2").pseudonym("subj", "alice")
    assert pseudonymizer.pseudonym("subj", "alice") == expected
    assert not (tmp_path / "map.secret").exists()


def test_from_settings_generates_a_private_secret_once(tmp_path: Path) -> None:
    """Unset secret: generated into map.secret (mode 0600) and reused by later processes."""
    settings = Settings(mapping_store_path=tmp_path / "var" / "map.sqlite3")
    first = pseudonymizer_from_settings(settings).pseudonym("subj", "alice")
    secret_file = tmp_path / "var" / "map.secret"
    assert stat.S_IMODE(os.stat(secret_file).st_mode) == 0o600
    assert len(secret_file.read_text().strip()) == 64
    assert pseudonymizer_from_settings(settings).pseudonym("subj", "alice") == first
    assert secret_file.read_text().strip() not in repr(pseudonymizer_from_settings(settings))


def test_a_store_without_its_secret_gets_no_new_one(tmp_path: Path) -> None:
    """The mapping store exists but its secret is gone: refused naming both, nothing made."""
    settings = Settings(mapping_store_path=tmp_path / "map.sqlite3")
    pseudonymizer_from_settings(settings)
    MappingStore(tmp_path / "map.sqlite3").record("subj_k1_" + "0" * 32, "subj", "alice")
    (tmp_path / "map.secret").unlink()
    with pytest.raises(SecretMissingError, match=r"map\.secret is missing.*map\.sqlite3 holds"):
        pseudonymizer_from_settings(settings)
    assert not (tmp_path / "map.secret").exists()


def test_from_settings_refuses_a_readable_secret_file(tmp_path: Path) -> None:
    secret_file = tmp_path / "map.secret"
    secret_file.write_text("0123456789abcdef0123456789abcdef\n")
    secret_file.chmod(0o644)
    settings = Settings(mapping_store_path=tmp_path / "map.sqlite3")
    with pytest.raises(InsecureFileError, match="chmod 600"):
        pseudonymizer_from_settings(settings)


def test_every_audit_privacy_setting_is_documented() -> None:
    """Each of these settings has a row in docs/audit.md's settings table."""
    documented = (Path(__file__).resolve().parents[2] / "docs" / "audit.md").read_text("utf-8")
    names = ["audit_secret", "audit_key_id", "mapping_store_path"]
    assert all(name in Settings.model_fields for name in names)
    missing = [n for n in names if f"| `LEXGATE_{n.upper()}` |" not in documented]
    assert missing == []


@given(
    st.binary(min_size=16, max_size=200),
    st.sampled_from(list(PseudonymKind)),
    st.text(min_size=1, max_size=80),
)
def test_the_keyed_state_copied_gives_the_one_shot_hmac(
    secret: bytes, kind: PseudonymKind, raw_id: str
) -> None:
    """The HMAC made from the keyed state copied is the standard one-shot HMAC-SHA256 for any
    secret, shorter or longer than a block (64 bytes: hashed first), any id, and a pseudonym
    asked twice is the same (the keyed state is copied, never updated)."""
    message = b"lexgate-pseudonym-v1\x00" + kind.value.encode() + b"\x00" + raw_id.encode()
    expected = hmac.digest(secret, message, "sha256").hex()[:32]
    pseudonymizer = Pseudonymizer(secret, "k1")
    assert pseudonymizer.pseudonym(kind.value, raw_id) == f"{kind.value}_k1_{expected}"
    assert pseudonymizer.pseudonym(kind.value, raw_id) == f"{kind.value}_k1_{expected}"
