"""Detached Ed25519 signatures of evidence packs: the key file, signing, and every way a
signature check must fail with a message naming the cause."""

from __future__ import annotations

import base64
import json
import multiprocessing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from audit.errors import PackSignatureError, SigningKeyError, SigningKeyMissingError
from audit.signing import (
    check_pack_signature,
    create_signing_key,
    fingerprint,
    load_signing_key,
    public_key_pem,
    read_public_key,
    sign_pack,
    signer_of,
    verify_signature,
)

PACK = b"PK\x03\x04 stands in for a pack's bytes" * 100


def made_key(path: Path) -> Ed25519PrivateKey:
    """A new signing key in path (as `lexgate audit init` makes it), loaded."""
    create_signing_key(path)
    return load_signing_key(path)


def test_key_is_made_once_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "private" / "key.pem"
    assert create_signing_key(path)
    first = load_signing_key(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert not create_signing_key(path)
    again = load_signing_key(path)
    assert fingerprint(again.public_key()) == fingerprint(first.public_key())


def test_a_missing_key_is_never_made_on_the_fly(tmp_path: Path) -> None:
    """Loading a key that is not there names the path and the command; it makes nothing."""
    path = tmp_path / "private" / "key.pem"
    with pytest.raises(
        SigningKeyMissingError, match=r"no pack signing key at .*key\.pem.*lexgate audit init"
    ):
        load_signing_key(path)
    assert not path.parent.exists()


def _fingerprint_of_new_key(path: str) -> str:
    create_signing_key(path)
    return fingerprint(load_signing_key(path).public_key())


def test_processes_making_the_key_at_once_agree(tmp_path: Path) -> None:
    """Four processes starting together end with one key (the first one linked into place)."""
    path = str(tmp_path / "key.pem")
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        fingerprints = pool.map(_fingerprint_of_new_key, [path] * 4)
    assert len(set(fingerprints)) == 1
    assert fingerprints[0] == _fingerprint_of_new_key(path)


def _ec_key_pem() -> bytes:
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@pytest.mark.parametrize(
    ("content", "mode", "message"),
    [
        (None, 0o644, "has mode 0644; make it 0600"),
        (b"not a key\n", 0o600, "holds no usable private key"),
        (_ec_key_pem(), 0o600, "holds a ECPrivateKey, not an Ed25519 key"),
    ],
    ids=["readable-by-others", "garbage", "another-algorithm"],
)
def test_unusable_key_files_are_refused(
    tmp_path: Path, content: bytes | None, mode: int, message: str
) -> None:
    path = tmp_path / "key.pem"
    create_signing_key(path)
    if content is not None:
        path.write_bytes(content)
    path.chmod(mode)
    with pytest.raises(SigningKeyError, match=message):
        load_signing_key(path)


def test_a_signature_verifies_with_the_public_key(tmp_path: Path) -> None:
    key = made_key(tmp_path / "key.pem")
    signature = sign_pack(PACK, key)
    document = json.loads(signature)
    assert document["algorithm"] == "Ed25519"
    public = read_public_key(public_key_pem(key).encode(), "key.pub")
    assert verify_signature(PACK, signature, public) == fingerprint(key.public_key())
    assert signer_of(signature) == document["key_fingerprint"]


def _forged(signature: bytes) -> bytes:
    document = json.loads(signature)
    raw = bytearray(base64.b64decode(document["signature"]))
    raw[0] ^= 0x01
    document["signature"] = base64.b64encode(bytes(raw)).decode()
    return json.dumps(document).encode()


def _edited(original: bytes, **fields: str) -> bytes:
    return json.dumps({**json.loads(original), **fields}).encode()


BAD_SIGNATURES = [
    ("another-pack", lambda sig: sig, PACK + b"!", "of another file"),
    ("forged", _forged, PACK, "does not verify"),
    ("not-base64", lambda sig: _edited(sig, signature="***"), PACK, "does not verify"),
    ("not-json", lambda sig: b"\xff{", PACK, "not JSON"),
    ("missing-field", lambda sig: b'{"algorithm": "Ed25519"}', PACK, "must be an object"),
    ("other-algorithm", lambda sig: _edited(sig, algorithm="RSA"), PACK, "'RSA' is not Ed25519"),
]


@pytest.mark.parametrize(("change", "data", "message"), [b[1:] for b in BAD_SIGNATURES],
                         ids=[b[0] for b in BAD_SIGNATURES])  # fmt: skip
def test_bad_signatures_are_refused_naming_why(
    tmp_path: Path, change: object, data: bytes, message: str
) -> None:
    key = made_key(tmp_path / "key.pem")
    signature = change(sign_pack(PACK, key))  # type: ignore[operator]
    with pytest.raises(PackSignatureError, match=message):
        verify_signature(data, signature, key.public_key())


def test_a_signature_by_another_key_names_both_keys(tmp_path: Path) -> None:
    signer = made_key(tmp_path / "key.pem")
    other = Ed25519PrivateKey.generate()
    with pytest.raises(PackSignatureError, match=r"signed by key SHA256:.*not by the given key"):
        verify_signature(PACK, sign_pack(PACK, signer), other.public_key())


def test_check_pack_signature_names_a_missing_file(tmp_path: Path) -> None:
    key = made_key(tmp_path / "key.pem")
    pack, public = tmp_path / "p.zip", tmp_path / "key.pub"
    pack.write_bytes(PACK)
    public.write_text(public_key_pem(key))
    with pytest.raises(PackSignatureError, match=r"signature file .*p\.zip\.sig cannot be read"):
        check_pack_signature(pack, public)
    (tmp_path / "p.zip.sig").write_bytes(sign_pack(PACK, key))
    assert check_pack_signature(pack, public) == fingerprint(key.public_key())
    public.write_text("-----BEGIN PUBLIC KEY-----\nnonsense\n-----END PUBLIC KEY-----\n")
    with pytest.raises(PackSignatureError, match="holds no PEM public key"):
        check_pack_signature(pack, public)
