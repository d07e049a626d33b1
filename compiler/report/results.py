"""Reading what `kite score` wrote (docs/scoring.md, schema 1), and the answers' texts from the run they came from."""

from __future__ import annotations

import json

from kite.errors import UnusableInput
from kite.scoring.formats import FULL_SCORE
from kite.scoring.grading import SCHEMA_VERSION
from kite.scoring.reading import MISSING, dotted, parse_line, run_lines


def read_results(path: str) -> list[dict]:
    """Every result line, in run order; anything else in the file is unusable input (one line, exit 2)."""
    results = []
    for number, raw in run_lines(path):
        line = parse_line(number, raw)
        if line.problem is not None:
            raise UnusableInput(f"{path}: line {number} is not a result of kite score ({line.problem[1]})")
        result = line.document
        assert result is not None, "a line with no problem is a JSON object"
        if result.get("schema") != SCHEMA_VERSION or not isinstance(result.get("line"), int) or "graded" not in result:
            raise UnusableInput(f"{path}: line {number} is not a result of kite score (schema {SCHEMA_VERSION})")
        results.append(result)
    if not results:
        raise UnusableInput(f"{path}: no results in it")
    return sorted(results, key=lambda result: result["line"])


def answer_texts(run: str, field: str) -> dict[int, str]:
    """Line of RUN -> the answer's text, for the lines where `field` holds one (others could not be graded)."""
    texts = {}
    for number, raw in run_lines(run):
        document = parse_line(number, raw).document
        answer = dotted(document, field) if document is not None else MISSING
        if isinstance(answer, str):
            texts[number] = answer
    return texts


def verdict_passed(result: dict) -> bool:
    """An answer passes when it was graded and earned the full score (kite: the hidden tests pass, or it compiles
    when no tests ran; the other formats: valid)."""
    return bool(result["graded"]) and result.get("score") == FULL_SCORE


def dumps_for_script(value) -> str:
    """JSON that can sit inside <script> untouched: no `<`, `>` or `&` (so no `</script>` or `<!--`), and ASCII only
    (so U+2028 and lone surrogates travel as escapes)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def prompts(tasks_dir: str) -> dict[str, str]:
    """Task id -> its prompt.md, for every task folder that has one (kite.scoring.tasks reads the folder)."""
    from kite.scoring.tasks import PROMPT, TaskFolder
    from kite.source import read

    folder = TaskFolder(tasks_dir)
    return {task_id: read(str(folder.root / task_id / PROMPT)).text for task_id in folder.task_ids()
            if (folder.root / task_id / PROMPT).exists()}
