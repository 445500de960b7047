"""Deterministic markdown replies for the UI tests."""

from __future__ import annotations

import itertools

SECTION = """## Step {n}: looking at `module_{n}.py`

The function `load_{n}` reads the configuration and **validates** it before use; when
the file is missing it falls back to defaults, which hides mistakes in section {n}.

- check that the path exists
- report *which* key failed
  with a second line that continues the item
- keep the old behaviour behind a flag

1. read the file
2. parse it

   with an indented paragraph inside item two
3. validate

```python
def load_{n}(path: str) -> dict:
    with open(path) as handle:
        data = json.load(handle)

    return validate(data)  # section {n}
```

| file | lines | note |
|------|------:|------|
| module_{n}.py | {lines} | reads `settings.json` and a_very_long_identifier_without_any_break_{n} |
| tests/test_{n}.py | 12 | short |

> Quoted remark for section {n}.

"""


def reply(sections: int) -> str:
    """A reply of `sections` sections (about 300 tokens each)."""
    body = "".join(SECTION.format(n=n, lines=10 * n + 3) for n in range(1, sections + 1))
    return "# Plan\n\n" + body + "## STATE\n\nAll done.\n"


def chunks(text: str, count: int) -> list[str]:
    """`text` cut into `count` pieces of (nearly) equal size."""
    count = max(1, min(count, len(text)))
    size, extra = divmod(len(text), count)
    bounds = [i * size + min(i, extra) for i in range(count + 1)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]
