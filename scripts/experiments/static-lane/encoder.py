"""The static encoder of `lore_search::static_embed`, in Python: BERT's basic
tokenizer (clean, CJK, lowercase, strip accents, split punctuation), greedy
WordPiece over the model's vocabulary, mean of the tokens' rows,
L2-normalised. Identifiers are split (camelCase, snake_case) first."""
import os
import re
import struct
import unicodedata

import numpy as np


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return any(lo <= cp <= hi for lo, hi in [
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)])


def basic_tokenize(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp in (0, 0xFFFD) or (ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")):
            continue
        out.append(" " if ch in " \t\n\r" or unicodedata.category(ch) == "Zs" else ch)
    text = "".join(f" {c} " if _is_cjk(ord(c)) else c for c in out)
    tokens = []
    for word in text.split():
        word = "".join(c for c in unicodedata.normalize("NFD", word.lower())
                       if unicodedata.category(c) != "Mn")
        current = ""
        for c in word:
            if _is_punct(c):
                if current:
                    tokens.append(current)
                    current = ""
                tokens.append(c)
            else:
                current += c
        if current:
            tokens.append(current)
    return tokens


def wordpiece(word, vocab, max_chars=100):
    if len(word) > max_chars:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, piece = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab:
                piece = sub
                break
            end -= 1
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def split_ident(s):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", s)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", s)
    return s.replace("_", " ")


MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "../../../crates/lore-search/embed/minilm_static.bin")


class Encoder:
    """The table the binary ships (`crates/lore-search/embed/minilm_static.bin`,
    format in its README): `LORESE01`, rows, dims, vocabulary length (u32
    LE), the vocabulary, one f32 scale per row, rows x dims int8."""

    def __init__(self, path=MODEL):
        blob = open(path, "rb").read()
        assert blob[:8] == b"LORESE01", "not a static embedding table"
        rows, dims, length = struct.unpack("<III", blob[8:20])
        at = 20 + length
        words = blob[20:at].decode("utf-8").split("\n")
        scale = np.frombuffer(blob, "<f4", rows, at)
        q = np.frombuffer(blob, np.int8, rows * dims, at + 4 * rows).reshape(rows, dims)
        self.rows = q.astype(np.float32) * scale[:, None]
        self.index = {w: i for i, w in enumerate(words)}

    def vec(self, text):
        text = split_ident(text)
        rows = [self.index[p] for w in basic_tokenize(text) for p in wordpiece(w, self.index)
                if p in self.index]
        if not rows:
            return np.zeros(self.rows.shape[1], np.float32)
        v = self.rows[rows].mean(0)
        n = np.linalg.norm(v)
        return v / n if n > 0 else v
