"""Regenerate `minilm_bert.onnx`, the weight-free ONNX graph of the packaged MiniLM's BERT.

A development tool, not a run-time path: it needs torch and transformers (the `[test]` extra) and
is run by a CI test that checks the committed graph is the one this export produces. The graph
keeps every weight as an initializer marked external (`location: model.safetensors`) and holds no
weight bytes (150 KB instead of 90 MB); the initializer names go to
`minilm_bert.json` beside it; `embed.minilm` hands ONNX Runtime the packaged
safetensors arrays for those names at load time. Initializer names are the checkpoint's own keys.

    python -m scholarbench.embed.onnx_export [OUT]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from scholarbench.embed.minilm import MiniLMEncoder

GRAPH = Path(__file__).with_name("minilm_bert.onnx")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


def export_graph(model_dir: Path, out: Path) -> Path:
    """Export the BERT of `model_dir` (last hidden state only) and strip its weights."""
    import tempfile

    import onnx
    import torch
    from onnx import TensorProto
    from transformers import AutoModel

    class LastHiddenState(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids)[0]

    model = LastHiddenState(AutoModel.from_pretrained(str(model_dir)).eval()).eval()
    example = tuple(torch.ones((2, 7), dtype=torch.long) for _ in INPUTS)
    axes = {name: {0: "batch", 1: "seq"} for name in (*INPUTS, "last_hidden_state")}
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "full.onnx"
        torch.onnx.export(model, example, str(full), input_names=list(INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=OPSET, do_constant_folding=False, dynamo=False)
        graph = onnx.load(str(full))
    prefix = "bert."
    renamed = {}
    for init in graph.graph.initializer:
        if not init.name.startswith(prefix):
            raise RuntimeError(f"unexpected initializer {init.name!r}: not a checkpoint weight")
        renamed[init.name] = init.name[len(prefix):]
        init.name = renamed[init.name]
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        entry = init.external_data.add()
        entry.key, entry.value = "location", "model.safetensors"
    for node in graph.graph.node:
        for i, name in enumerate(node.input):
            if name in renamed:
                node.input[i] = renamed[name]
    graph.producer_name, graph.producer_version = "scholarbench.embed.onnx_export", ""
    out.write_bytes(graph.SerializeToString())
    names = {"initializers": [init.name for init in graph.graph.initializer]}
    out.with_suffix(".json").write_text(json.dumps(names, indent=1) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else GRAPH
    print(export_graph(MiniLMEncoder.model_path(), out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
