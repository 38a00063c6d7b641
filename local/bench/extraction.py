"""Extraction: recall, precision and false current beliefs of the rules on the case set.

Runs every case of ``tests/extraction_cases`` through the service layer on in-memory fakes (the
ingestion chain in, ``service.profile`` out; no server), prints the figures overall, per language
and per category, and writes them as JSON (default ``.run/bench/extraction.json``).

    python -m local.bench.extraction [--json PATH] [--failures N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_JSON = Path(".run/bench/extraction.json")


def print_table(result: dict) -> None:
    print(f"{'group':<24} {'cases':>5} {'recall':>7} {'precision':>9} {'false current':>13}")
    for key, row in result.items():
        if isinstance(row, dict) and "recall" in row:
            print(f"{key:<24} {row['cases']:>5} {row['recall']:>7.3f} {row['precision']:>9.3f} "
                  f"{row['false_current']:>13}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.extraction", description=__doc__.split("\n")[0])
    parser.add_argument("--json", dest="json_out", default=str(DEFAULT_JSON))
    parser.add_argument("--failures", type=int, default=10, help="how many failing cases to print")
    args = parser.parse_args(argv)
    from tests.extraction_cases import BATCHES, batch_cases, batch_names, run_all, score

    started = time.perf_counter()
    result = score(run_all())
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["generated_at"] = datetime.now(UTC).isoformat()
    print_table(result)
    # The blind batches: their figure before any rule was changed for them (recorded once), and now.
    recorded = json.loads((BATCHES / "pre_change.json").read_text("utf-8"))["batches"]
    result["batches"] = {}
    print(f"\n{'blind batch':<12} {'cases':>5} {'before: recall':>15} {'precision':>9} {'false':>5}"
          f"   {'now: recall':>11} {'precision':>9} {'false':>5}")
    for name in batch_names():
        now = score(run_all(batch_cases(name)))["all"]
        before = recorded.get(name, {}).get("all", {})
        result["batches"][name] = {"before": before, "now": now}
        print(f"{name:<12} {now['cases']:>5} {before.get('recall', float('nan')):>15.3f} "
              f"{before.get('precision', float('nan')):>9.3f} {before.get('false_current', -1):>5}"
              f"   {now['recall']:>11.3f} {now['precision']:>9.3f} {now['false_current']:>5}")
    for failure in result["failures"][: args.failures]:
        print("  miss:", json.dumps(failure, ensure_ascii=False))
    out = Path(args.json_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"wrote {out} ({len(result['failures'])} cases not exact, {result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
