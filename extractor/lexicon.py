"""The name lexicon: known law names and aliases, mapped to canonical names.

Built from a mapping written name → canonical name (the database passes its laws and
aliases in). Keys are normalised with `textnorm.normalize_name`; two kinds of alias are
derived so that a plain list of formal names already works:
- without the PRC prefix: 中华人民共和国劳动合同法 → also 劳动合同法;
- interpretations named after a law: 最高人民法院关于适用《中华人民共和国婚姻法》若干问题的
  解释（三） → also 婚姻法若干问题的解释（三） and 中华人民共和国婚姻法若干问题的解释（三）.
An explicit entry always wins over a derived one. A name not found otherwise resolves to the
one canonical name whose known names end with it (交通安全法 → 中华人民共和国道路交通安全法),
if exactly one does.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from extractor.errors import LexiconError
from textnorm import normalize_name, strip_prc_prefix
from textnorm.kept import kept_pattern

PRC_PREFIX = "中华人民共和国"
_INNER_TITLE = kept_pattern(r"^最高人民法院关于(?:适用)?[《〈]([^《》〈〉]+)[》〉](.+)$")
_BRACKETS = str.maketrans({"(": "（", ")": "）"})
_NUMBERED_INTERPRETATION = kept_pattern(r"若干问题的解释(（[一二三四五六七八九十]+）)")
_MIN_SUFFIX_KEY = 4  # 交通安全法 → 道路交通安全法; shorter tails (保险法) are too ambiguous


def _derived_aliases(name: str) -> list[str]:
    """Aliases a formal name implies (before normalisation, so inner 《》 are still seen)."""
    aliases = []
    key = normalize_name(name)
    if key.startswith(PRC_PREFIX) and len(key) > len(PRC_PREFIX) + 1:
        aliases.append(strip_prc_prefix(key))
    inner = _INNER_TITLE.match(name.strip())
    if inner:
        law, tail = normalize_name(inner.group(1)), normalize_name(inner.group(2))
        tails = [tail]
        numbered = _NUMBERED_INTERPRETATION.fullmatch(tail)
        if numbered:  # 婚姻法解释（三）, 婚姻法司法解释（三）
            tails += [f"解释{numbered.group(1)}", f"司法解释{numbered.group(1)}"]
        for law_name in (law, strip_prc_prefix(law)):
            aliases.extend(law_name + t for t in tails)
    return aliases


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Known law names (normalised keys) → canonical names; immutable once built."""

    names: Mapping[str, str]
    lengths: tuple[int, ...] = field(default=())  # key lengths, longest first
    last_chars: frozenset[str] = field(default=frozenset())
    reversed_keys: tuple[str, ...] = field(default=())  # every key backwards, sorted
    _resolved: dict[str, str | None] = field(
        default_factory=dict, compare=False, repr=False
    )  # memo of resolve(): answers repeat the same few names
    _tail_lengths: dict[str, tuple[int, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )  # last two characters → lengths of the keys ending with them, longest first (lazy)
    written_laws: dict[str, tuple[str, str]] = field(
        default_factory=dict, compare=False, repr=False
    )  # memo of extractor.context's reading of a written name: (the name, its law)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str]) -> Lexicon:
        """Build from written name → canonical name; canonical names are keys too."""
        explicit: dict[str, str] = {}
        for written, canonical in mapping.items():
            if not isinstance(written, str) or not isinstance(canonical, str):
                raise LexiconError(f"lexicon entries must be strings: {written!r}")
            key = normalize_name(written)
            if not key or not canonical.strip():
                raise LexiconError(f"empty law name in lexicon entry {written!r}")
            explicit[key] = canonical.strip()
        derived: dict[str, str] = {}
        for written, canonical in mapping.items():
            for name in (written, canonical):
                derived.setdefault(normalize_name(name), canonical.strip())
                for alias in _derived_aliases(name):
                    derived.setdefault(alias, canonical.strip())
        derived.update(explicit)
        return cls(
            names=MappingProxyType(derived),
            lengths=tuple(sorted({len(k) for k in derived}, reverse=True)),
            last_chars=frozenset(k[-1] for k in derived),
            reversed_keys=tuple(sorted(k[::-1] for k in derived)),
        )

    def to_plain(self) -> tuple[dict[str, str], tuple[int, ...], frozenset[str], tuple[str, ...]]:
        """The built lexicon as plain values (for `marshal`)."""
        return dict(self.names), self.lengths, self.last_chars, self.reversed_keys

    @classmethod
    def from_plain(
        cls, plain: tuple[dict[str, str], tuple[int, ...], frozenset[str], tuple[str, ...]]
    ) -> Lexicon:
        """The lexicon `to_plain` described, without deriving its aliases again."""
        names, lengths, last_chars, reversed_keys = plain
        return cls(MappingProxyType(names), lengths, last_chars, reversed_keys=reversed_keys)

    @classmethod
    def from_names(cls, names: Iterable[str]) -> Lexicon:
        """Build from formal names, each its own canonical name."""
        return cls.from_mapping({name: name for name in names})

    @classmethod
    def from_json(cls, data: object) -> Lexicon:
        """Build from parsed JSON: a mapping name → canonical, or a list of names."""
        if isinstance(data, Mapping):
            return cls.from_mapping(data)
        if isinstance(data, list) and all(isinstance(name, str) for name in data):
            return cls.from_names(data)
        raise LexiconError("a lexicon is a JSON object (name → canonical) or a list of names")

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and normalize_name(name) in self.names

    def forget(self) -> None:
        """Empty the memos of names met so far (a benchmark's cold pass starts from none)."""
        self._resolved.clear()
        self.written_laws.clear()

    def resolve(self, name: str) -> str | None:
        """The canonical name of a written name, trying with and without the PRC prefix."""
        if name in self._resolved:
            return self._resolved[name]
        key = normalize_name(name)
        found = self.names.get(key)
        if found is None and key.startswith(PRC_PREFIX):
            found = self.names.get(strip_prc_prefix(key))
        if found is None and not key.startswith(PRC_PREFIX):
            found = self.names.get(PRC_PREFIX + key)
        if found is None and len(key) >= _MIN_SUFFIX_KEY:
            found = self._unique_ending(key)
        if len(self._resolved) < 100_000:
            self._resolved[name] = found
        return found

    def _unique_ending(self, key: str) -> str | None:
        """The one canonical name whose known names end with `key` (a shortened name such as
        交通安全法 for 道路交通安全法), or None when none or several do."""
        backwards = key[::-1]
        canonical = set()
        # The keys ending with `key` are, backwards, a run of the sorted reversed keys.
        for position in range(bisect_left(self.reversed_keys, backwards), len(self.reversed_keys)):
            known = self.reversed_keys[position]
            if not known.startswith(backwards):
                break
            canonical.add(self.names[known[::-1]])
            if len(canonical) > 1:
                return None
        return canonical.pop() if canonical else None

    def longest_suffix(self, text: str) -> int:
        """Length of the longest known name that `text` ends with (0: none).

        `text` is raw answer text; only ASCII brackets are normalised, so a name broken by
        spaces is not found (the caller strips spaces at the edges). Only the lengths of the
        keys ending with the same two characters are tried.
        """
        if not text or text[-1] not in self.last_chars:
            return 0
        if "(" in text or ")" in text:
            text = text.translate(_BRACKETS)
        if not self._tail_lengths:
            self._index_tails()
        size = len(text)
        for length in self._tail_lengths.get(text[-2:], ()):
            if length <= size and text[size - length :] in self.names:
                return length
        return 1 if text[-1] in self.names else 0

    def _index_tails(self) -> None:
        """Fill `_tail_lengths` from the keys (once, on the first `longest_suffix`), in one
        `update` so that another thread never sees it half filled."""
        tails: dict[str, set[int]] = {}
        for key in self.names:
            if len(key) > 1:
                tails.setdefault(key[-2:], set()).add(len(key))
        self._tail_lengths.update(
            {tail: tuple(sorted(lengths, reverse=True)) for tail, lengths in tails.items()}
        )
