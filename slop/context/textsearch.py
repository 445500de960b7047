"""Turning a prompt into a search query: the fix for what killed FTS_RANKED.

The original searched the raw prompt, so "continue" or "go on" became high-relevance
queries that pulled random fragments. Here stop words and low-information words are
removed first; when nothing informative is left, callers fall back to the window."""

from __future__ import annotations

import re

from slop.stopwords import SEARCH_STOP_WORDS

# Words that carry no topic in an agent session: "continue", "go on", "next", "ok do it".
LOW_INFORMATION = frozenset(
    """
    continue continuing go going goes gone on next ok okay k yes yeah yep yup sure please pls thanks thank thx
    proceed keep carry resume again more done fine good great cool nice right alright awesome perfect sounds
    proceeding stop wait try retry same still anything something everything thing things stuff one ones way
    want need let now well also then else hmm hm ah oh lgtm ack agreed agree do does go ahead tell say said
    """.split()  # noqa: SIM905
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # FTS5 unicode61 splits on '_' too
# In ASCII text the words are the runs of [a-z0-9] once lower-cased: every other
# character becomes a space and str.split does the rest (3x faster than a regex).
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
MAX_TERMS = 16
_UNINFORMATIVE = SEARCH_STOP_WORDS | LOW_INFORMATION


def words(text: str) -> list[str]:
    if text.isascii():
        return text.lower().translate(_ASCII_SEPARATORS).split()
    return [w.lower() for w in _WORD.findall(text)]


def informative(word: str) -> bool:
    if word in _UNINFORMATIVE:
        return False
    return len(word) >= 2 or word.isdigit()


def informative_terms(text: str, limit: int = MAX_TERMS) -> list[str]:
    """Distinct informative words of `text`, in order; for long texts the `limit`
    longest (longer words are rarer, so they carry more of a BM25 score)."""
    seen: dict[str, None] = {}
    for word in words(text):
        if informative(word):
            seen.setdefault(word, None)
    terms = list(seen)
    if len(terms) > limit:
        keep = set(sorted(terms, key=len, reverse=True)[:limit])
        terms = [t for t in terms if t in keep]
    return terms


def fts_query(terms: list[str]) -> str:
    """An FTS5 query matching any of the terms (each quoted, so no operator or syntax error)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def keywords(text: str) -> set[str]:
    return {w for w in words(text) if informative(w)}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
