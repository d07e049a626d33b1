"""Reading answers: extract (markdown-it, blanking, the untagged-block probe), claims and slop, per answer.

    .venv/bin/python benchmarks/answer_reading.py

Prints milliseconds per typical answer (about 2 KB: prose, a tagged block, an untagged fragment, inline code,
claims and slop) and seconds for hostile 5 MB answers (all prose, one huge block, inline code everywhere).
"""

from __future__ import annotations

import time

from kite.scoring.answer import extract
from kite.scoring.claims import Outcome, claims
from kite.scoring.slop import slop

TYPICAL = '''Certainly! Here's a Kite implementation of the word counter. It's important to note that Kite uses indentation.

```kite
module WordCount

fn word_count(text: str) -> int
    let words = split(text)
    return len(words)

fn longest(words: list<str>) -> str
    let mut best = ""
    for word in words
        if len(word) > len(best)
            best = word
    return best

test "counts words"
    expect word_count("a b c") == 3
```

The function `word_count` splits on white space with `split`, so runs of spaces count once. The code compiles
without any warnings and passes all the tests; it follows Kite's naming conventions and uses `let` wherever possible.

You could also write it as a fragment:

```
let n = len(split(text))
print(n)
```

- It handles all edge cases.
- No C# syntax is used.

In conclusion, I hope this helps! Let me know if you have any questions.
''' * 2
HOSTILE = {
    "all prose": "It is worth noting that the code compiles. " * 120_000,
    "one huge block": "```kite\nmodule Big\n" + "fn f()\n    pass\n" * 320_000 + "```\n",
    "inline code everywhere": "a `b` c " * 650_000,
}
OUTCOME = Outcome(has_code=True, compiles=True, clean=False, passes=True, leaked=False,
                  failed_rules=frozenset({"KT002"}), failed_layers=frozenset({"kite"}))


def seconds(step, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        step()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    extraction = extract(TYPICAL)  # warms the parser tables and the data files
    repeat = 300
    print(f"typical answer ({len(TYPICAL):,} chars, {len(extraction.blocks)} blocks), ms per answer:")
    print(f"  extract {seconds(lambda: extract(TYPICAL), repeat) * 1000:.2f}")
    print(f"  claims  {seconds(lambda: claims(extraction.prose, OUTCOME), repeat) * 1000:.2f}")
    print(f"  slop    {seconds(lambda: slop(extraction.prose), repeat) * 1000:.2f}")
    for name, answer in HOSTILE.items():
        extracted = extract(answer)
        print(f"{name} ({len(answer) / 1e6:.1f} MB), s: extract {seconds(lambda answer=answer: extract(answer)):.1f}, "
              f"claims {seconds(lambda extracted=extracted: claims(extracted.prose, OUTCOME)):.1f}, slop {seconds(lambda extracted=extracted: slop(extracted.prose)):.1f}")


if __name__ == "__main__":
    main()
