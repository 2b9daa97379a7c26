#!/usr/bin/env python3
"""Regenerate the tpuc serving fixtures: static-KV-cache decode-step and prefill archives made
with transformers' own export helper, and PyTorch's greedy tokens and logits for them.

Usage (from the repository root, inside a venv made from testdata/requirements.txt):

    python testdata/serving/generate_serving.py              # every family
    python testdata/serving/generate_serving.py llama gpt2   # only these; the rest of manifest.json stays

Everything is written into this file's directory; see README.md here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import generate  # noqa: E402  (testdata/generate.py)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from torch.export import ExportedProgram  # noqa: E402
from transformers import AutoModelForCausalLM, GenerationConfig  # noqa: E402
from transformers.cache_utils import StaticCache  # noqa: E402
from transformers.integrations.executorch import (  # noqa: E402
    TorchExportableModuleWithStaticCache,
    convert_and_export_with_cache,
)

MANIFEST = HERE / "manifest.json"
SCRIPT_REL = "testdata/serving/generate_serving.py"
SEED = 0
CACHE_LEN = 32
PROMPT_LEN = 6
NEW_TOKENS = 8
# Greedy tokens are compared exactly: every step's best logit must beat the second by this much,
# so that float32 rounding differences between runtimes cannot flip a token.
MIN_MARGIN = 1e-2
TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}

_generate_repo_relative = generate.repo_relative


def repo_relative(path: str) -> str:
    """generate.py's stack-trace path rewriting, which also knows this script's path."""
    if os.path.isabs(path) and os.path.realpath(path) == os.path.realpath(__file__):
        return SCRIPT_REL
    return _generate_repo_relative(path)


generate.repo_relative = repo_relative

# Tiny decoder configurations. `initializer_range` is large so that logits are far apart and
# greedy decoding does not hinge on rounding.
COMMON = dict(vocab_size=128, max_position_embeddings=64, initializer_range=0.3, use_cache=True)
FAMILIES: dict[str, tuple[str, dict]] = {
    "llama": (
        "LlamaConfig",
        dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2),
    ),
    "qwen3": (
        "Qwen3Config",
        dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, head_dim=8),
    ),
    "phi3": (
        "Phi3Config",
        dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, pad_token_id=0),
    ),
    "gpt2": ("GPT2Config", dict(n_embd=32, n_layer=2, n_head=4, n_positions=64)),
}
# Families whose decode step is also exported with `strict=False`, where the cache tensors are
# lifted as constants that the graph writes in place.
NONSTRICT = ("llama",)
# Families whose decode step is also saved in the ATen dialect (`run_decompositions()`), where
# the writes are functional and the signature lists the buffer mutations.
ATEN = ("llama", "gpt2", "handwritten")
# A cache written by hand instead of by transformers.
HANDWRITTEN = "handwritten"


# Families whose decode step is also exported with the cache as inputs written in place, of
# symbolic batch size and length (`Dim`), so one archive serves every bucket.
DYNAMIC = ("llama",)


class CacheInputsStep(torch.nn.Module):
    """transformers' model with its `StaticCache` backed by the step's inputs `keys` and
    `values` ([layers, batch, kv heads, length, head_dim]), which it writes in place."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, cache_position, keys, values):
        cache = StaticCache(max_cache_len=keys.shape[3], config=self.model.config)
        cache.early_initialization(keys.shape[1], keys.shape[2], keys.shape[4], keys.dtype, keys.device)
        for i, layer in enumerate(cache.layers):
            layer.keys, layer.values = keys[i], values[i]
            layer.cumulative_length = cache_position[0].clone()
        return self.model(input_ids=input_ids, cache=cache, use_cache=True, attention_mask=None).logits


def export_dynamic(family: str) -> ExportedProgram:
    model = make_model(family)
    config = model.config
    layers, kv_heads = config.num_hidden_layers, config.num_key_value_heads
    head_dim = config.hidden_size // config.num_attention_heads
    keys = torch.zeros(layers, 2, kv_heads, CACHE_LEN, head_dim)
    batch = torch.export.Dim("batch", min=1, max=64)
    length = torch.export.Dim("length", min=8, max=4096)
    cache_dims = {1: batch, 3: length}
    with torch.no_grad():
        return torch.export.export(
            CacheInputsStep(model),
            (torch.zeros(2, 1, dtype=torch.long), torch.tensor([0]), keys, keys.clone()),
            dynamic_shapes=({0: batch}, None, cache_dims, cache_dims),
            strict=False,
        )


def greedy_with_inputs(step: ExportedProgram, prompt: torch.Tensor, cache_shape: tuple):
    """`greedy` for a step whose cache is its inputs: zeroed caches of `cache_shape`."""
    module = step.module()
    keys, values = torch.zeros(cache_shape), torch.zeros(cache_shape)
    rows, tokens = [], []
    with torch.no_grad():
        for position in range(PROMPT_LEN + NEW_TOKENS - 1):
            if position < PROMPT_LEN:
                ids = prompt[:, position : position + 1]
            else:
                tokens.append(int(torch.argmax(rows[-1])))
                ids = torch.tensor([[tokens[-1]]])
            logits = module(ids, torch.tensor([position]), keys, values)
            rows.append(logits[0, -1])
        tokens.append(int(torch.argmax(rows[-1])))
    return np.array(tokens, dtype=np.int64), torch.stack(rows).float().numpy()


class HandwrittenDecoder(torch.nn.Module):
    """One attention layer with a cache of its own, written the ways hand-written caches write
    it: keys by `index_copy_` into [batch, heads, length, head_dim], values by an indexed
    assignment through a transposed view of [batch, length, heads, head_dim] (`index_put_` on
    a `transpose`), and the step count by `add_` through a `select` view."""

    def __init__(self, vocab: int = 128, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.embed = torch.nn.Embedding(vocab, dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)
        self.head = torch.nn.Linear(dim, vocab)
        self.register_buffer("k_cache", torch.zeros(1, heads, CACHE_LEN, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, CACHE_LEN, heads, self.head_dim))
        self.register_buffer("steps", torch.zeros(2, dtype=torch.long))

    def forward(self, input_ids: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        length = input_ids.shape[1]
        x = self.embed(input_ids)
        q, k, v = self.qkv(x).split(x.shape[-1], dim=-1)
        shape = (1, length, self.heads, self.head_dim)
        q, k, v = q.reshape(shape), k.reshape(shape), v.reshape(shape)
        self.k_cache.index_copy_(2, cache_position, k.transpose(1, 2))
        self.v_cache.transpose(1, 2)[:, :, cache_position] = v.transpose(1, 2)
        self.steps.select(0, 0).add_(length)
        keys, values = self.k_cache, self.v_cache.transpose(1, 2)
        scores = q.transpose(1, 2) @ keys.transpose(2, 3) / self.head_dim**0.5
        visible = torch.arange(CACHE_LEN)[None, :] <= cache_position[:, None]
        scores = scores.masked_fill(~visible, float("-inf"))
        attended = (scores.softmax(-1) @ values).transpose(1, 2).reshape(1, length, -1)
        return self.head(torch.tanh(self.out(attended)) + x)


def make_model(family: str) -> torch.nn.Module:
    if family == HANDWRITTEN:
        torch.manual_seed(SEED)
        model = HandwrittenDecoder().eval()
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.normal_(0.0, COMMON["initializer_range"])
        return model
    class_name, fields = FAMILIES[family]
    config = getattr(transformers, class_name)(**COMMON, **fields)
    torch.manual_seed(SEED)
    model = AutoModelForCausalLM.from_config(config).eval()
    model.generation_config = GenerationConfig(
        use_cache=True,
        cache_implementation="static",
        max_length=CACHE_LEN,
        cache_config={"batch_size": 1, "max_cache_len": CACHE_LEN},
    )
    return model


def save_program(ep: ExportedProgram, rel: str) -> dict:
    generate.normalize_metadata(ep)
    ep.example_inputs = None
    path = HERE / rel
    torch.export.save(ep, path)
    generate.assert_machine_free(path)
    summary = generate.variant_summary(ep, path)
    summary["file"] = rel
    return summary


def save_npy(rel: str, array: np.ndarray) -> None:
    np.save(HERE / rel, array, allow_pickle=False)


def export_step(family: str, length: int, strict: bool = True) -> ExportedProgram:
    """The step of `family` taking `length` tokens: transformers' helper's wrapper, or the
    hand-written decoder itself."""
    model = make_model(family)
    if family == HANDWRITTEN:
        module = model
    elif length == 1:
        return convert_and_export_with_cache(model, strict=strict)
    else:
        module = TorchExportableModuleWithStaticCache(model)
    with torch.no_grad():
        ids = torch.zeros(1, length, dtype=torch.long)
        return torch.export.export(
            module,
            args=(),
            kwargs={"input_ids": ids, "cache_position": torch.arange(length)},
            strict=strict,
        )


def expected_tokens(family: str, prompt: torch.Tensor) -> list[int]:
    """What the model itself decodes: transformers' `generate`, or the hand-written decoder run
    eagerly, token by token."""
    model = make_model(family)
    with torch.no_grad():
        if family != HANDWRITTEN:
            out = model.generate(
                prompt,
                max_new_tokens=NEW_TOKENS,
                do_sample=False,
                attention_mask=torch.ones_like(prompt),
            )
            return out[0, PROMPT_LEN:].tolist()
        logits = model(prompt, torch.arange(PROMPT_LEN))[0, -1]
        tokens = []
        for n in range(NEW_TOKENS):
            tokens.append(int(torch.argmax(logits)))
            position = torch.tensor([PROMPT_LEN + n])
            logits = model(torch.tensor([[tokens[-1]]]), position)[0, -1]
        return tokens


def greedy(decode: ExportedProgram, prompt: torch.Tensor):
    """Runs the exported decode step as `tpuc generate` does without a prefill archive: the
    prompt token by token, then NEW_TOKENS argmax tokens fed back. Returns the new tokens, the
    logits of positions 0..P+N-2 and each step's top-2 margin."""
    step = decode.module()
    rows, margins, tokens = [], [], []
    with torch.no_grad():
        for position in range(PROMPT_LEN):
            logits = step(
                input_ids=prompt[:, position : position + 1],
                cache_position=torch.tensor([position]),
            )
            rows.append(logits[0, -1])
        for n in range(NEW_TOKENS):
            last = rows[-1]
            top = torch.topk(last, 2).values
            margins.append(float(top[0] - top[1]))
            token = int(torch.argmax(last))
            tokens.append(token)
            if n + 1 == NEW_TOKENS:
                break
            logits = step(
                input_ids=torch.tensor([[token]]), cache_position=torch.tensor([PROMPT_LEN + n])
            )
            rows.append(logits[0, -1])
    return np.array(tokens, dtype=np.int64), torch.stack(rows).float().numpy(), margins


def build(family: str) -> dict:
    model = make_model(family)
    torch.manual_seed(SEED + 1)
    prompt = torch.randint(1, COMMON["vocab_size"], (1, PROMPT_LEN))
    save_npy(f"{family}.prompt.npy", prompt.numpy())

    # Each archive is saved before anything runs it (running an exported program writes its
    # cache buffers) and the saved file is what runs: the archives hold zeroed caches.
    decode_entry = save_program(export_step(family, 1), f"{family}.decode.pt2")
    decode = torch.export.load(HERE / f"{family}.decode.pt2")
    tokens, logits, margins = greedy(decode, prompt)
    assert min(margins) >= MIN_MARGIN, f"{family}: greedy margins {margins}"

    expected = expected_tokens(family, prompt)
    assert expected == tokens.tolist(), f"{family}: the model decodes {expected}, its export {tokens}"

    entry: dict = {
        "prompt": f"{family}.prompt.npy",
        "tokens": f"{family}.tokens.npy",
        "logits": f"{family}.logits.npy",
        "min_margin": min(margins),
        "decode": decode_entry,
        # The cache buffers and the dimension of each that holds the heads.
        "cache_heads": (
            {"k_cache": 1, "v_cache": 2}
            if family == HANDWRITTEN
            else {
                name: 1
                for name, _ in decode.module().named_buffers()
                if name.startswith(("key_cache_", "value_cache_"))
            }
        ),
    }
    save_npy(f"{family}.tokens.npy", tokens)
    save_npy(f"{family}.logits.npy", logits)

    # The prefill archive, run with a fresh decode step (both start from zeroed caches).
    entry["prefill"] = save_program(export_step(family, PROMPT_LEN), f"{family}.prefill.pt2")
    prefill_module = torch.export.load(HERE / f"{family}.prefill.pt2").module()
    decode_module = torch.export.load(HERE / f"{family}.decode.pt2").module()
    with torch.no_grad():
        first = prefill_module(input_ids=prompt, cache_position=torch.arange(PROMPT_LEN))[0]
        # Hand the prefill's cache to the decode step, buffer by buffer (same names).
        prefilled = dict(prefill_module.named_buffers())
        for name, buffer in decode_module.named_buffers():
            if name in prefilled and "cache" in name:
                buffer.copy_(prefilled[name])
        rows = list(first)
        prefill_tokens = []
        for n in range(NEW_TOKENS):
            token = int(torch.argmax(rows[-1]))
            prefill_tokens.append(token)
            if n + 1 == NEW_TOKENS:
                break
            out = decode_module(
                input_ids=torch.tensor([[token]]), cache_position=torch.tensor([PROMPT_LEN + n])
            )
            rows.append(out[0, -1])
    assert prefill_tokens == tokens.tolist(), f"{family}: prefill path {prefill_tokens} != {tokens}"
    difference = float((torch.stack(rows) - torch.from_numpy(logits)).abs().max())
    assert difference <= 1e-4, f"{family}: prefill logits differ by {difference}"
    entry["prefill_logit_difference"] = difference

    if family in NONSTRICT:
        nonstrict = export_step(family, 1, strict=False)
        assert any(
            spec.kind.name == "CONSTANT_TENSOR" for spec in nonstrict.graph_signature.input_specs
        )
        # Tracing a non-strict export runs the module: the cache tensors hold what it wrote.
        # They are the constants the graph writes in place; zero them (and only them).
        written = {
            node.args[0].name
            for node in nonstrict.graph.nodes
            if node.op == "call_function"
            and getattr(node.target, "_schema", None) is not None
            and node.target._schema.arguments
            and node.target._schema.arguments[0].is_write
        }
        with torch.no_grad():
            for spec in nonstrict.graph_signature.input_specs:
                if spec.kind.name == "CONSTANT_TENSOR" and spec.arg.name in written:
                    nonstrict.constants[spec.target].zero_()
        entry["decode_nonstrict"] = save_program(nonstrict, f"{family}.decode-nonstrict.pt2")
        reloaded = torch.export.load(HERE / f"{family}.decode-nonstrict.pt2")
        nonstrict_tokens, nonstrict_logits, _ = greedy(reloaded, prompt)
        assert nonstrict_tokens.tolist() == tokens.tolist(), f"{family}: non-strict {nonstrict_tokens}"
        assert np.abs(nonstrict_logits - logits).max() <= 1e-4
    if family in DYNAMIC:
        entry["decode_dynamic"] = save_program(export_dynamic(family), f"{family}.decode-dynamic.pt2")
        reloaded = torch.export.load(HERE / f"{family}.decode-dynamic.pt2")
        config = make_model(family).config
        shape = (
            config.num_hidden_layers,
            1,
            config.num_key_value_heads,
            CACHE_LEN,
            config.hidden_size // config.num_attention_heads,
        )
        dynamic_tokens, dynamic_logits = greedy_with_inputs(reloaded, prompt, shape)
        assert dynamic_tokens.tolist() == tokens.tolist(), f"{family}: cache inputs {dynamic_tokens}"
        assert np.abs(dynamic_logits - logits).max() <= 1e-4
    if family in ATEN:
        aten = torch.export.load(HERE / f"{family}.decode.pt2").run_decompositions()
        entry["decode_aten"] = save_program(aten, f"{family}.decode-aten.pt2")
        reloaded = torch.export.load(HERE / f"{family}.decode-aten.pt2")
        aten_tokens, aten_logits, _ = greedy(reloaded, prompt)
        assert aten_tokens.tolist() == tokens.tolist(), f"{family}: ATen dialect {aten_tokens}"
        assert np.abs(aten_logits - logits).max() <= 1e-4
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    every = [*FAMILIES, HANDWRITTEN]
    parser.add_argument("families", nargs="*", choices=[[], *every], default=[])
    families = parser.parse_args().families or every
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    manifest.update(
        {
            "generator": SCRIPT_REL,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "cache_len": CACHE_LEN,
            "prompt_len": PROMPT_LEN,
            "new_tokens": NEW_TOKENS,
            "tolerance": TOLERANCE,
        }
    )
    manifest.setdefault("families", {})
    for family in families:
        print(family, flush=True)
        manifest["families"][family] = build(family)
    manifest["families"] = dict(sorted(manifest["families"].items()))
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
