"""The Chinese dialogue set (``local/bench/dialogues/zh_companion_*.json``): ``local.bench.dialogues``
with ``--set zh``. The round-2 set (``local/bench/zh_dev.json``, user turns only, tuned on) runs with
``--data local/bench/zh_dev.json``.

    python -m local.bench.zh [--models e5 minilm] [--json OUT] [--reuse FILE]
"""

from __future__ import annotations

import sys

from .dialogues import main

if __name__ == "__main__":
    sys.exit(main(default_set="zh"))
