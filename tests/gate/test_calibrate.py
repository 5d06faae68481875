"""`lexgate judge calibrate` on the real statute data, the judge on a loopback server."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gate.calibrate import read_items, report
from gate.errors import JudgeInputError
from gate.judge_cli import register
from gate.models import CalibrationItem, CalibrationOutcome, Judgement
from legaldb import StatuteRepository
from lexgate.factories import judge_client_from_settings
from lexgate.settings import Settings
from tests.llm_server import LLMServer, Reply

ONLY_SQLITE_STATUTES = pytest.mark.parametrize("corpus_database_url", ["sqlite"], indirect=True)
PIPL = "中华人民共和国个人信息保护法"
CIVIL_CODE = "中华人民共和国民法典"

ITEMS: list[dict[str, Any]] = [
    {"id": "pipl-ok", "claim": "撤回同意不影响撤回前处理活动的效力。", "law": PIPL,
     "article": "第十五条", "expected": "supports"},
    {"id": "pipl-reversed", "claim": "撤回同意前的处理活动也随之无效。", "law": PIPL,
     "article": "第十五条第二款", "expected": "contradicts"},
    {"id": "divorce", "claim": "离婚时夫妻的共同财产由双方协议处理。", "law": CIVIL_CODE,
     "article": 1087, "expected": "supports"},
    {"id": "off-topic", "claim": "劳动者可以随时解除劳动合同。", "law": CIVIL_CODE,
     "article": "第一千零八十七条", "expected": "says_nothing"},
    {"id": "repealed", "claim": "违约方应当承担违约责任。", "law": "中华人民共和国合同法",
     "article": "第一百零七条", "expected": "supports", "as_of": "2024-01-01"},
]  # fmt: skip
# One reply per judged item, in file order (the repealed one is skipped: no request).
REPLIES = [
    ("A", {"A": 0.95, "B": 0.03, "C": 0.02}),  # right, stands everywhere
    ("B", {"B": 0.75, "A": 0.15, "C": 0.10}),  # right, stands up to 0.7
    ("C", {"C": 0.55, "A": 0.45}),  # wrong (expected supports), stands at 0.5 only
    ("C", {"C": 0.85, "A": 0.10, "B": 0.05}),  # right, stands up to 0.8
]
# threshold -> (stand, right, review)
TABLE = {0.5: (4, 3, 0), 0.6: (3, 3, 1), 0.7: (3, 3, 1), 0.8: (2, 2, 2), 0.9: (1, 1, 3)}


def write_items(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n", "utf-8")
    return path


def cli(repo: StatuteRepository, settings: Settings) -> typer.Typer:
    """A root command with the real `judge` sub-app registered, over the given repository."""
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """LexGate (test root)."""

    register(
        app, lambda: repo, lambda: judge_client_from_settings(settings), lambda: date(2023, 8, 1)
    )
    return app


@ONLY_SQLITE_STATUTES
def test_calibrate_prints_the_matrix_and_the_threshold_table(
    statute_repository: StatuteRepository, llm_server: LLMServer, tmp_path: Path
) -> None:
    """Confusion matrix and stand/right/review per threshold, from scripted logprobs."""
    llm_server.script(
        *(
            Reply.chat(first, top_logprobs={t: math.log(p) for t, p in top.items()})
            for first, top in REPLIES
        )
    )
    settings = Settings(llm_base_url=llm_server.base_url, llm_model="judge", llm_max_retries=0)
    path = write_items(tmp_path / "items.jsonl", ITEMS)
    result = CliRunner().invoke(
        cli(statute_repository, settings), ["judge", "calibrate", str(path), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["items"], data["judged"], data["skipped"]) == (5, 4, 1)
    assert data["confusion"] == {
        "supports": {"supports": 1, "contradicts": 0, "says_nothing": 1},
        "contradicts": {"supports": 0, "contradicts": 1, "says_nothing": 0},
        "says_nothing": {"supports": 0, "contradicts": 0, "says_nothing": 1},
    }
    assert data["accuracy"] == pytest.approx(0.75)
    found = {
        row["threshold"]: (row["stand"], row["right"], row["review"]) for row in data["thresholds"]
    }
    assert found == TABLE
    (skipped,) = [o for o in data["outcomes"] if o["skipped"]]
    assert skipped["item"]["id"] == "repealed" and "repealed" in skipped["skipped"]
    # The article text in force went to the judge, with the labelled claim.
    sent = [request.json["messages"][-1]["content"] for request in llm_server.requests]
    assert len(sent) == 4
    assert "不影响撤回前基于个人同意已进行的个人信息处理活动的效力" in sent[1]
    assert "撤回同意前的处理活动也随之无效" in sent[1]
    assert "由人民法院根据财产的具体情况" in sent[2]


@ONLY_SQLITE_STATUTES
def test_the_text_report(
    statute_repository: StatuteRepository, llm_server: LLMServer, tmp_path: Path
) -> None:
    """The plain report names the counts, the matrix and one line per threshold."""
    llm_server.script(then=Reply.chat("A", top_logprobs={"A": math.log(0.95), "B": math.log(0.05)}))
    settings = Settings(llm_base_url=llm_server.base_url, llm_model="judge")
    path = write_items(tmp_path / "items.jsonl", ITEMS[:2])
    result = CliRunner().invoke(
        cli(statute_repository, settings), ["judge", "calibrate", str(path)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "items 2 · judged 2 · skipped 0 · accuracy 50.0%"
    assert [line.split()[0] for line in lines if line.strip().startswith("0.")] == [
        "0.50", "0.60", "0.70", "0.80", "0.90",
    ]  # fmt: skip
    assert "      0.90       2       1      50.0%       0" in lines


@ONLY_SQLITE_STATUTES
def test_an_unavailable_judge_fails_the_run(
    statute_repository: StatuteRepository, llm_down_url: str, tmp_path: Path
) -> None:
    """A calibration without its model ends with an error, not a report."""
    settings = Settings(llm_base_url=llm_down_url, llm_model="judge", llm_max_retries=0)
    path = write_items(tmp_path / "items.jsonl", ITEMS[:1])
    result = CliRunner().invoke(
        cli(statute_repository, settings), ["judge", "calibrate", str(path)]
    )
    assert result.exit_code == 1
    assert "unavailable" in result.output


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not JSON"),
        ('["a"]', "not a JSON object"),
        ('{"claim": "x", "law": "民法典", "article": "第一条", "expected": "maybe"}', "expected"),
        ('{"claim": "x", "law": "民法典", "expected": "supports"}', "article"),
        ('{"claim": "x", "law": "民法典", "article": "第一条", "expected": "supports", '
         '"as_of": "2024-13-01"}', "as_of"),
    ],
    ids=["not-json", "not-object", "unknown-relation", "missing-article", "bad-date"],
)  # fmt: skip
def test_bad_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    """A bad line stops the run with its line number and field."""
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"claim": "x", "law": "民法典", "article": 1, "expected": "supports"}\n' + line
    )
    with pytest.raises(JudgeInputError, match=rf"bad.jsonl:2: .*{message}"):
        read_items(path)


def test_a_missing_or_empty_file_is_an_error(tmp_path: Path) -> None:
    """No file, or no item in it, is an input error."""
    with pytest.raises(JudgeInputError, match="no such file"):
        read_items(tmp_path / "none.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(JudgeInputError, match="no labelled items"):
        read_items(tmp_path / "empty.jsonl")


def test_threshold_boundary_stands() -> None:
    """A confidence equal to the threshold stands (at or above)."""
    item = CalibrationItem(id="1", claim="c", law="l", article="1", expected="supports")
    judged = CalibrationOutcome(
        item=item, judgement=Judgement(supports=0.5, contradicts=0.25, says_nothing=0.25)
    )
    (row,) = report([judged], thresholds=[0.5]).thresholds
    assert (row.stand, row.right, row.review) == (1, 1, 0)
