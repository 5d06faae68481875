#!/usr/bin/env bash
# The evaluations on ../shared/eval (extraction F1, quote-check accuracy), as the issues define
# them. Usage: scripts/evaluate.sh [SHARED_DIR]   (`make eval`). Needs `lexgate db init` done.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${1:-${LEXGATE_SHARED_DIR:-../shared}}"
OUT="var/eval"
mkdir -p "$OUT"
BIN=.venv/bin

echo "== extraction: $SHARED/eval/flzx_dev_labeled.json"
$BIN/python - "$SHARED/eval/flzx_dev_labeled.json" > "$OUT/labeled.jsonl" <<'PY'
import json, sys
for item in json.load(open(sys.argv[1], encoding="utf-8")):
    print(json.dumps({"id": item["id"], "answer": item["answer"]}, ensure_ascii=False))
PY
$BIN/lexgate extract --jsonl "$OUT/labeled.jsonl" > "$OUT/extract_pred.jsonl"
python3 "$SHARED/eval/score_extraction.py" "$SHARED/eval/flzx_dev_labeled.json" "$OUT/extract_pred.jsonl"

echo "== quote check: $SHARED/eval/quote_dev.jsonl"
$BIN/lexgate check --jsonl "$SHARED/eval/quote_dev.jsonl" > "$OUT/quote_pred.jsonl"
python3 "$SHARED/eval/score_quotes.py" "$SHARED/eval/quote_dev.jsonl" "$OUT/quote_pred.jsonl"
