"""The static encoder of `lore_search::static_embed`, in Python, for
experiments on the benches' dumps: the same table and the same steps (see
that module's doc): words split on anything not a letter or digit and
inside identifiers, values (numbers, ids, hashes) left out, lower-cased
with accents stripped; WordPiece, longest piece first, a word no pieces
cover (or that takes over 32) left out; the rows summed and scaled to
length 1."""
import os
import re
import struct
import unicodedata

import numpy as np

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "../../../crates/lore-search/embed/minilm_static.bin")
MAX_WORD_CHARS = 100
MAX_PIECES = 32
# lower→upper (`orderItems`), the last capital of a run before lower case
# (`HTTPServer`), letters and digits (`q4revenue`): tokenizer.rs's split.
PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_]+")


def is_value(run):
    digits = sum(c.isascii() and c.isdigit() for c in run)
    return digits == len(run) or (digits >= 3 and len(run) >= 8)


def words(text):
    for run in re.split(r"[\W_]+", text):
        if not run or is_value(run):
            continue
        plain = "".join(c for c in unicodedata.normalize("NFD", run) if not unicodedata.combining(c))
        for part in PARTS.findall(plain):
            yield part.lower()


class Encoder:
    """The table the binary ships (`crates/lore-search/embed/minilm_static.bin`,
    format in its README): `LORESE01`, rows, dims, vocabulary length (u32
    LE), the vocabulary, one f32 scale per row, rows x dims int8."""

    def __init__(self, path=MODEL):
        blob = open(path, "rb").read()
        assert blob[:8] == b"LORESE01", "not a static embedding table"
        rows, dims, length = struct.unpack("<III", blob[8:20])
        at = 20 + length
        pieces = blob[20:at].decode("utf-8").split("\n")
        scale = np.frombuffer(blob, "<f4", rows, at)
        q = np.frombuffer(blob, np.int8, rows * dims, at + 4 * rows).reshape(rows, dims)
        self.rows = q.astype(np.float32) * scale[:, None]
        self.starts = {p: i for i, p in enumerate(pieces) if not (p.startswith("##") and len(p) > 2)}
        self.continuations = {p[2:]: i for i, p in enumerate(pieces) if p.startswith("##") and len(p) > 2}

    def pieces(self, word):
        if not word or len(word) > MAX_WORD_CHARS:
            return []
        ids, start = [], 0
        while start < len(word):
            table = self.starts if start == 0 else self.continuations
            end = next((e for e in range(len(word), start, -1) if word[start:e] in table), None)
            if end is None or len(ids) == MAX_PIECES:
                return []
            ids.append(table[word[start:end]])
            start = end
        return ids

    def vec(self, text):
        ids = [i for w in words(text) for i in self.pieces(w)]
        if not ids:
            return np.zeros(self.rows.shape[1], np.float32)
        v = self.rows[ids].sum(0)
        n = np.linalg.norm(v)
        return v / n if n > 0 else v
