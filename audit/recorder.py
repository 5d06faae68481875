"""Recording gated answers: one case per round, each attempt, each citation's verdict.

A case is a round of the gate (a one-off evaluation is a round of one attempt). Every free
text stored (question, answers, citation surfaces, evidence, facts, errors) goes through
`mask_pii` first; subject and session ids are stored only as pseudonyms, whose mapping is
written to the pseudonym store before the case is committed (a store in the same database in
the same transaction). One transaction per call (the caller's, when given a connection): a
failed write raises AuditWriteError and leaves no row of it behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from audit.errors import AuditWriteError, CaseMismatchError, CaseMovedOnError, TraceError
from audit.ids import random_hex
from audit.mapping_store import PseudonymStore
from audit.masking import mask_pii, may_hold_pii
from audit.models import (
    PseudonymKind,
    Recording,
    Trace,
    TracedAttempt,
    TracedCase,
)
from audit.pseudonyms import Pseudonymizer, parse_pseudonym
from audit.review import review_rows
from audit.tables import (
    ATTEMPT_TABLE,
    CASE_TABLE,
    CITATION_TABLE,
    REVIEW_TABLE,
    from_row,
    insert_all,
)
from gate.models import Assessment, AttemptRecord, Fact, Failure, RoundRecord, Standard
from gate.policy import Policy
from gate.provisions import provision_of
from gate.rounds import open_round, record_attempt
from legaldb.models import Manifest
from legaldb.repository import StatuteRepository
from verifier.models import Verdict

Row = dict[str, Any]


def canonical_json(value: Any) -> str:
    """One text per value: sorted keys, no spaces, UTF-8 kept (hashes and ids are taken of it)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=64)  # a Policy is frozen: its id never changes (and most are the default)
def policy_id(policy: Policy) -> str:
    """A short id of a policy: the first 16 hex of the sha256 of its canonical JSON."""
    digest = hashlib.sha256(canonical_json(policy.model_dump(mode="json")).encode())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=64)
def _policy_json(policy: Policy) -> Row:
    """The policy as its case row holds it (the same dict for every case under it: not changed)."""
    return policy.model_dump(mode="json")


_last_policy: tuple[Policy, str, Row] | None = None
"""The policy of the last case row made, its id and JSON: most rounds share one policy object
(`gate.policy.default_policy`), and hashing a pydantic model for the caches costs more."""


def _policy_columns(policy: Policy) -> tuple[str, Row]:
    """(policy_id(policy), _policy_json(policy)), for the same object as the last time at once."""
    global _last_policy
    last = _last_policy
    if last is not None and last[0] is policy:
        return last[1], last[2]
    made = (policy, policy_id(policy), _policy_json(policy))
    _last_policy = made
    return made[1], made[2]


HASH_PIECE = 2047
"""hashlib lets go of the interpreter's lock while it hashes 2,048 bytes or more at once; a
server's writer thread then waits for its busy event loop to give it back (a switch interval,
5 ms). Hashed in pieces below that, an answer's hash keeps the lock: the same digest."""


def answer_sha256(answer: str) -> str:
    """The sha256 of the raw answer (UTF-8), kept so that a case can be matched to its text."""
    data = answer.encode("utf-8")
    digest = hashlib.sha256(data[:HASH_PIECE])
    for start in range(HASH_PIECE, len(data), HASH_PIECE):
        digest.update(data[start : start + HASH_PIECE])
    return digest.hexdigest()


MAX_CLEAN_TEXTS = 16384
_clean_texts: set[str] = set()
"""Short texts found free of personal data, which are stored as they are: the standards'
wording, facts, law names and citations recur from answer to answer and are masked once per
process (a text in which masking finds anything is never kept here)."""


def _masked(text: str | None) -> str | None:
    if text is None or text in _clean_texts:
        return text
    # PostgreSQL text cannot hold NUL: stored as U+FFFD on both backends (the hash keeps the raw).
    masked = (mask_pii(text).text if may_hold_pii(text) else text).replace("\x00", "\ufffd")
    if masked == text and len(text) <= 300:
        if len(_clean_texts) >= MAX_CLEAN_TEXTS:
            _clean_texts.clear()
        _clean_texts.add(text)
    return masked


def _clip(text: str | None, length: int) -> str | None:
    """Text cut to a column's length (PostgreSQL enforces it; answers may hold any junk)."""
    if text is None or len(text) <= length:
        return text
    return text[: length - 1] + "…"


def _aware(moment: datetime | None) -> datetime:
    if moment is None:
        return datetime.now(UTC)
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise AuditWriteError(f"a recording time needs a timezone: {moment!r}")
    return moment.astimezone(UTC)


# --- From the gate's and the verifier's types to rows (pure) ---


def _fact_json(fact: Fact) -> Row:
    return {
        "kind": fact.kind,
        "text": _masked(fact.text),
        "law": fact.law,
        "provision": fact.provision,
    }


def _standard_json(standard: Standard) -> Row:
    return {
        "name": standard.name,
        "passed": standard.passed,
        "summary": _masked(standard.summary),
        "evidence": [
            {
                "text": _masked(evidence.text),
                "start": evidence.start,
                "end": evidence.end,
                "note": _masked(evidence.note),
            }
            for evidence in standard.evidence
        ],
    }


def _failure_json(failure: Failure, verdict: Verdict) -> Row:
    """A failure with what the verdict of its first occurrence knows of the real law."""
    facts = verdict.facts
    return {
        "signal": failure.signal,
        "correctable": failure.correctable,
        "law": failure.provision.law,
        "article": failure.provision.article,
        "article_suffix": failure.provision.article_suffix,
        "paragraph": failure.provision.paragraph,
        "item": failure.provision.item,
        "provision": _masked(failure.provision.label),
        "detail": failure.detail,
        "article_count": facts.article_count,
        "paragraph_count": facts.paragraph_count,
        "item_count": facts.item_count,
        "repealed_on": facts.repealed_on,
    }


def _tail_coverage(entry: AttemptRecord) -> Row:
    """The gate's tail coverage figures of the attempt, with its standard's verdict."""
    coverage = entry.tail_coverage
    if coverage is None:
        raise AuditWriteError(f"attempt {entry.attempt} holds no tail coverage figures")
    standard = next((s for s in entry.standards if s.name == "tail_coverage"), None)
    figures = coverage.model_dump()
    return {
        "applicable": figures.pop("applicable"),
        "passed": True if standard is None else standard.passed,
        **figures,
    }


def _citation_row(case_id: str, attempt: int, position: int, verdict: Verdict) -> Row:
    citation = verdict.citation
    facts = verdict.facts
    provision = provision_of(verdict)
    version_label = verdict.resolved.version_label if verdict.resolved else facts.version_label
    conflicts = [
        {
            "kind": conflict.kind,
            "claim_value": conflict.claim_value,
            "claim_surface": _masked(conflict.claim_surface),
            "article_values": list(conflict.article_values),
            "article_surfaces": list(conflict.article_surfaces),
        }
        for conflict in verdict.number_conflicts
    ]
    return {
        "case_id": case_id,
        "attempt": attempt,
        "position": position,
        "surface": _masked(citation.surface),
        "span_start": citation.start,
        "span_end": citation.end,
        "law": _clip(_masked(provision.law), 500),
        "law_as_written": _clip(_masked(citation.law_as_written), 500),
        "implicit": bool(citation.implicit),
        "article": int(citation.article),
        "article_suffix": _clip(citation.article_suffix, 20),
        "paragraph": citation.paragraph,
        "item": citation.item,
        "provision": _clip(_masked(provision.label), 700),
        "status": verdict.status,
        "reason": verdict.reason,
        "level": _clip(facts.level, 20),
        "article_count": facts.article_count,
        "paragraph_count": facts.paragraph_count,
        "item_count": facts.item_count,
        "version_label": _clip(version_label, 100),
        "repealed_on": date.fromisoformat(facts.repealed_on) if facts.repealed_on else None,
        "quote_verdict": verdict.quote_check.verdict,
        "quote_score": verdict.quote_check.score,
        "number_conflicts": conflicts,
    }


def _attempt_rows(
    case_id: str, entry: AttemptRecord, recorded_at: datetime
) -> tuple[Row, list[Row]]:
    """The attempt's row and its citations' rows, from the assessment the attempt holds."""
    check = entry.check
    if check is None:
        raise AuditWriteError(
            f"attempt {entry.attempt} holds no verifier check: record the round that assessed "
            "it (gate.rounds), not one read back from JSON"
        )
    by_span: dict[tuple[int, int], Verdict] = {}
    for verdict in check.verdicts:
        by_span.setdefault((verdict.citation.start, verdict.citation.end), verdict)
    failures = []
    for failure in entry.failures:
        first = by_span.get((failure.start, failure.end))
        if first is None:
            raise CaseMismatchError(
                f"attempt {entry.attempt}: the verifier's check does not hold the citation "
                f"at {failure.start}-{failure.end} the gate failed; pass the check of this answer"
            )
        failures.append(_failure_json(failure, first))
    standards = [_standard_json(s) for s in entry.standards]
    counts = entry.counts
    row = {
        "case_id": case_id,
        "attempt": entry.attempt,
        "recorded_at": recorded_at,
        "answer": _masked(entry.answer),
        "answer_sha256": answer_sha256(entry.answer),
        "decision": entry.decision,
        "verifiable_rate": entry.verifiable_rate,
        "citations": counts.citations,
        "provisions": counts.provisions,
        "verified": counts.verified,
        "deprecated": counts.deprecated,
        "not_yet_effective": counts.not_yet_effective,
        "unverified": counts.unverified,
        "failures": failures,
        "standards": standards,
        "failed_standards": [
            {"name": s["name"], "summary": s["summary"]} for s in standards if not s["passed"]
        ],
        "unsupported_conclusions": [
            evidence["text"]
            for s in standards
            if s["name"] == "conclusions_have_basis"
            for evidence in s["evidence"]
        ],
        "tail_coverage": _tail_coverage(entry),
        "injected_facts": [_fact_json(f) for f in entry.injected_facts],
        "facts": [_fact_json(f) for f in entry.facts],
        "rerun_requested": entry.rerun_request is not None,
    }
    citations = [
        _citation_row(case_id, entry.attempt, position, verdict)
        for position, verdict in enumerate(check.verdicts)
    ]
    return row, citations


def _case_row(
    case_id: str,
    round_: RoundRecord,
    subject: str | None,
    session: str,
    manifest: Manifest,
    recorded_at: datetime,
) -> Row:
    policy_key, policy_json = _policy_columns(round_.policy)
    return {
        "case_id": case_id,
        "recorded_at": recorded_at,
        "updated_at": recorded_at,
        "subject": subject,
        "session": session,
        "question": _masked(round_.question),
        "as_of": date.fromisoformat(round_.as_of),
        "policy": policy_json,
        "policy_id": policy_key,
        "statute_source": _clip(manifest.source, 1000) or "",
        "statute_snapshot": _clip(manifest.snapshot, 200) or "",
        "max_attempts": round_.max_attempts,
        "premise_facts": [_fact_json(f) for f in round_.premise_facts],
        **_round_state(round_),
    }


def _round_state(round_: RoundRecord) -> Row:
    return {
        "state": round_.state,
        "delivery": round_.delivery,
        "error": _masked(round_.error),
        "attempt_count": len(round_.attempts),
    }


class _Batch:
    """Rows of several cases, written together."""

    def __init__(self) -> None:
        self.cases: list[Row] = []
        self.attempts: list[Row] = []
        self.citations: list[Row] = []
        self.reviews: list[Row] = []

    def copy(self) -> _Batch:
        """A batch holding the same rows in lists of its own (what a write adds stays there)."""
        copied = _Batch()
        copied.cases = list(self.cases)
        copied.attempts = list(self.attempts)
        copied.citations = list(self.citations)
        copied.reviews = list(self.reviews)
        return copied

    def add_attempts(
        self,
        case_id: str,
        round_: RoundRecord,
        entries: Iterable[AttemptRecord],
        recorded_at: datetime,
    ) -> None:
        as_of = date.fromisoformat(round_.as_of)
        for entry in entries:
            row, citations = _attempt_rows(case_id, entry, recorded_at)
            self.attempts.append(row)
            self.citations.extend(citations)
            self.reviews.extend(
                review_rows(case_id, entry.attempt, entry.judged, as_of=as_of, now=recorded_at)
            )

    def write(self, connection: Connection) -> None:
        # Parents first: the attempts' and citations' foreign keys need their rows.
        insert_all(connection, CASE_TABLE, self.cases)
        insert_all(connection, ATTEMPT_TABLE, self.attempts)
        insert_all(connection, CITATION_TABLE, self.citations)
        insert_all(connection, REVIEW_TABLE, self.reviews)


# --- Recording ---


def _pseudonyms(
    pseudonymizer: Pseudonymizer, session_id: str, subject_id: str | None
) -> tuple[str, str | None, list[tuple[str, str, str]]]:
    session = pseudonymizer.pseudonym(PseudonymKind.SESSION, session_id)
    entries = [(session, PseudonymKind.SESSION.value, session_id)]
    subject = None
    if subject_id is not None:
        subject = pseudonymizer.pseudonym(PseudonymKind.SUBJECT, subject_id)
        entries.append((subject, PseudonymKind.SUBJECT.value, subject_id))
    return session, subject, entries


def _write(
    bind: Engine | Connection,
    store: PseudonymStore,
    entries: list[tuple[str, str, str]],
    moment: datetime,
    reads: Callable[[Connection], None],
    writes: Callable[[Connection], None],
) -> None:
    """reads(connection), the pseudonyms' mapping, then writes(connection) (statements whose
    results it does not read: a mapping in the same database sends them with its own), in one
    transaction (bind's own when it is a connection: the caller commits); any database
    failure rolls all of it back."""

    def both(connection: Connection) -> None:
        reads(connection)
        store.record_many(entries, moment, connection=connection, along=writes)

    try:
        if isinstance(bind, Connection):
            both(bind)
        else:
            with bind.begin() as connection:
                both(connection)
    except sa.exc.SQLAlchemyError as error:
        raise AuditWriteError(f"the audit record was not written: {error}") from error


def record(
    bind: Engine | Connection,
    round_: RoundRecord,
    *,
    repo: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: PseudonymStore,
    subject_id: str | None = None,
    case_id: str | None = None,
    now: datetime | None = None,
) -> str:
    """Record a round of the gate as its attempts hold it (each with its check and judgements;
    the unsure judgements go to the review queue); returns its case id.

    Without case_id, a new case. With the case id an earlier call returned, the round's
    attempts not yet recorded are added and the case's state updated: a round kept between
    requests is recorded after each answer. CaseMismatchError if the round does not continue
    that case (another session or subject, or a recorded answer that differs); its subclass
    CaseMovedOnError if the case holds another answer in the place of the round's last one,
    or more answers (another answer of the session was recorded meanwhile): the case row is
    locked while this is checked, so two answers of one session are recorded one after the
    other. Recording the same round again adds nothing.

    bind: an engine (one transaction of its own) or a connection (the caller's transaction).
    """
    recording = Recording(round_, subject_id, now, case_id)
    [recorded] = record_many(
        bind, [recording], repo=repo, pseudonymizer=pseudonymizer, store=store, now=now
    )
    return recorded


def _continue_case(
    connection: Connection,
    batch: _Batch,
    recording: Recording,
    session: str,
    subject: str | None,
    moment: datetime,
) -> None:
    """Add the round's attempts not yet in its case to batch, and update the case's state;
    CaseMismatchError (CaseMovedOnError) when the round does not continue the case."""
    round_, case_id = recording.round, recording.case_id
    stored = connection.execute(
        sa.select(CASE_TABLE.c.session, CASE_TABLE.c.subject, CASE_TABLE.c.policy_id)
        .where(CASE_TABLE.c.case_id == case_id)
        .with_for_update()
    ).one_or_none()
    if stored is None or case_id is None:
        raise CaseMismatchError(f"no recorded case {case_id}")
    if (stored.session, stored.subject) != (session, subject):
        raise CaseMismatchError(f"case {case_id} belongs to another session or subject")
    if stored.policy_id != policy_id(round_.policy):
        raise CaseMismatchError(f"case {case_id} was gated under another policy")
    hashes = connection.execute(
        sa.select(ATTEMPT_TABLE.c.answer_sha256)
        .where(ATTEMPT_TABLE.c.case_id == case_id)
        .order_by(ATTEMPT_TABLE.c.attempt)
    ).scalars()
    recorded = list(hashes)
    answers = [answer_sha256(entry.answer) for entry in round_.attempts]
    if recorded[: len(answers) - 1] != answers[: len(recorded)][: len(answers) - 1]:
        raise CaseMismatchError(f"the round does not continue the answers of case {case_id}")
    if recorded != answers[: len(recorded)]:
        raise CaseMovedOnError(
            f"case {case_id} holds {len(recorded)} answers already: another answer took "
            f"the place of the round's attempt {len(answers)} meanwhile"
        )
    batch.add_attempts(case_id, round_, round_.attempts[len(recorded) :], moment)
    connection.execute(
        CASE_TABLE.update()
        .where(CASE_TABLE.c.case_id == case_id)
        .values(updated_at=moment, **_round_state(round_))
    )


def record_result(
    engine: Engine,
    answer: str,
    assessment: Assessment,
    *,
    repo: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: PseudonymStore,
    session_id: str,
    question: str | None = None,
    policy: Policy | None = None,
    subject_id: str | None = None,
    now: datetime | None = None,
) -> str:
    """Record one assessment (`gate.assess_answer`) as a case of one attempt; its case id.

    policy is the one the answer was assessed under (default Policy()).
    """
    round_ = single_attempt_round(
        answer, assessment, session_id=session_id, question=question, policy=policy
    )
    return record(
        engine,
        round_,
        repo=repo,
        pseudonymizer=pseudonymizer,
        store=store,
        subject_id=subject_id,
        now=now,
    )


def single_attempt_round(
    answer: str,
    assessment: Assessment,
    *,
    session_id: str,
    question: str | None = None,
    policy: Policy | None = None,
) -> RoundRecord:
    """The round of one attempt an assessment amounts to (its state as gate.rounds sets it)."""
    opened = open_round(
        session_id=session_id,
        question=question,
        as_of=date.fromisoformat(assessment.result.as_of),
        policy=policy,
    )
    return record_attempt(opened, answer, assessment)


class PreparedRecords:
    """Rounds made into their audit rows and pseudonyms, not yet written (`prepare_records`):
    the CPU work of recording, done before the transaction (and its locks) starts."""

    __slots__ = ("_batch", "_continuing", "_entries", "_moment", "case_ids")

    def __init__(
        self,
        batch: _Batch,
        entries: list[tuple[str, str, str]],
        case_ids: list[str],
        continuing: list[tuple[Recording, str, str | None, datetime]],
        moment: datetime,
    ) -> None:
        self._batch = batch
        self._entries = entries
        self.case_ids = case_ids
        self._continuing = continuing
        self._moment = moment


def prepare_records(
    recordings: Iterable[Recording],
    *,
    repo: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    now: datetime | None = None,
) -> PreparedRecords:
    """The rows and pseudonyms of `record_many(recordings)`, without I/O (`write_records`
    writes them). AuditWriteError or CaseMismatchError when a round cannot be recorded."""
    moment = _aware(now)
    batch = _Batch()
    entries: dict[str, tuple[str, str, str]] = {}
    case_ids: list[str] = []
    continuing: list[tuple[Recording, str, str | None, datetime]] = []
    manifest: Manifest | None = None  # the statutes' (once for all the new cases)
    for recording in recordings:
        round_ = recording.round
        if not round_.attempts:
            raise AuditWriteError("a round without any answer has nothing to record")
        at = _aware(recording.recorded_at) if recording.recorded_at else moment
        session, subject, mapped = _pseudonyms(
            pseudonymizer, round_.session_id, recording.subject_id
        )
        entries.update((entry[0], entry) for entry in mapped)
        if recording.case_id is not None:
            continuing.append((recording, session, subject, at))
            case_ids.append(recording.case_id)
            continue
        case_id = random_hex()
        manifest = manifest or repo.manifest()
        batch.cases.append(_case_row(case_id, round_, subject, session, manifest, at))
        batch.add_attempts(case_id, round_, round_.attempts, at)
        case_ids.append(case_id)
    return PreparedRecords(batch, list(entries.values()), case_ids, continuing, moment)


def write_records(
    bind: Engine | Connection, prepared: PreparedRecords, *, store: PseudonymStore
) -> list[str]:
    """Write what `prepare_records` made, in one transaction (all or none; bind's own when it
    is a connection: the caller commits); the case ids, in order."""
    if not prepared.case_ids:
        return []
    batch = prepared._batch.copy()  # the prepared rows, and the continued cases' attempts read here

    def continue_cases(connection: Connection) -> None:
        for recording, session, subject, at in prepared._continuing:
            _continue_case(connection, batch, recording, session, subject, at)

    # the continued cases read and locked first, then the mapping, then the rows
    _write(bind, store, prepared._entries, prepared._moment, continue_cases, batch.write)
    return prepared.case_ids


def record_many(
    bind: Engine | Connection,
    recordings: Iterable[Recording],
    *,
    repo: StatuteRepository,
    pseudonymizer: Pseudonymizer,
    store: PseudonymStore,
    now: datetime | None = None,
) -> list[str]:
    """`record` of many rounds in one transaction (all or none); their case ids, in order.

    A recording with a case_id continues that case (as `record` does), else it is a new case;
    each recording's recorded_at (default now) dates its rows. The pseudonyms' mapping is
    written once for all, and the rows of all the cases with one statement per table: a
    server records the answers that queued up meanwhile together, an import its cases.
    """
    prepared = prepare_records(recordings, repo=repo, pseudonymizer=pseudonymizer, now=now)
    return write_records(bind, prepared, store=store)


# --- Tracing (server only: needs the mapping store) ---


def trace(engine: Engine, pseudonym: str, store: PseudonymStore) -> Trace:
    """The real id behind a subject or session pseudonym and every case recorded under it.

    TraceError when the pseudonym is malformed or this store never recorded it.
    """
    try:
        kind, _key_id = parse_pseudonym(pseudonym)
    except ValueError as error:
        raise TraceError(str(error)) from None
    entry = store.resolve(pseudonym)
    if entry is None:
        raise TraceError(
            f"{pseudonym} is not in {store.describe()}: it was not recorded on this server "
            "(or under another mapping store)"
        )
    column = CASE_TABLE.c.subject if kind == PseudonymKind.SUBJECT.value else CASE_TABLE.c.session
    with engine.connect() as connection:
        cases = connection.execute(
            sa.select(CASE_TABLE).where(column == pseudonym).order_by(CASE_TABLE.c.recorded_at)
        ).all()
        attempts: dict[str, list[TracedAttempt]] = {row.case_id: [] for row in cases}
        if cases:
            rows = connection.execute(
                sa.select(
                    ATTEMPT_TABLE.c.case_id,
                    *(ATTEMPT_TABLE.c[field.name] for field in dataclasses.fields(TracedAttempt)),
                )
                .where(ATTEMPT_TABLE.c.case_id.in_(list(attempts)))
                .order_by(ATTEMPT_TABLE.c.case_id, ATTEMPT_TABLE.c.attempt)
            )
            for row in rows:
                attempts[row.case_id].append(from_row(TracedAttempt, row))
    return Trace(
        entry,
        tuple(from_row(TracedCase, row, attempts=tuple(attempts[row.case_id])) for row in cases),
    )


__all__ = [
    "PreparedRecords",
    "answer_sha256",
    "canonical_json",
    "policy_id",
    "prepare_records",
    "record",
    "record_many",
    "record_result",
    "single_attempt_round",
    "trace",
    "write_records",
]
