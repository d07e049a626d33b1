"""Writes run.jsonl and tasks/ (hidden tests, and the reference solution they pass) from the templates below: ten tasks, twenty answers each in the shapes models write
(one block, several, untagged and ~~~ fences, indented code, C# blocks, prose only, C# habits, fragments, bare
function bodies, true and false claims, slop), one that never ends, and three lines that cannot be graded.

    python samples/runs/make_run.py     (then review the diff of tests/scoring/samples_run.expected)
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# task id: (module, signature, correct body, buggy body, hidden tests, an own test the buggy body passes, C# answer)
TASKS = {
    "add_numbers": ("Adder", "fn add(a: int, b: int) -> int", ["return a + b"], ["return a - b"],
                    ["expect add(1, 2) == 3", "expect add(-1, -2) == -3", "expect add(0, 0) == 0"], "expect add(2, 0) == 2",
                    "public static int Add(int a, int b) { return a + b; }"),
    "word_count": ("Words", "fn count_words(text: str) -> int", ["return len(split(text))"], ['return len(split(text, " "))'],
                   ['expect count_words("hello world") == 2', 'expect count_words("") == 0', 'expect count_words("a  b") == 2'],
                   'expect count_words("one two") == 2', "public static int CountWords(string text) => text.Split(' ').Length;"),
    "shout": ("Shout", "fn shout(name: str) -> str", ['return upper(name) + "!"'], ['return name + "!"'],
              ['expect shout("hi") == "HI!"', 'expect shout("") == "!"'], 'expect shout("A") == "A!"',
              'public static string Shout(string name) { return name.ToUpper() + "!"; }'),
    "evens": ("Evens", "fn evens(xs: list<int>) -> list<int>",
              ["let out: list<int> = []", "for x in xs", "    if x % 2 == 0", "        out.Add(x)", "return out"],
              ["let out: list<int> = []", "for x in xs", "    out.Add(x)", "return out"],
              ["expect evens([1, 2, 3, 4]) == [2, 4]", "expect evens([1, 3]) == []", "expect evens([-2, 0]) == [-2, 0]"],
              "expect evens([2, 4]) == [2, 4]", "public static List<int> Evens(List<int> xs) => xs.Where(x => x % 2 == 0).ToList();"),
    "total": ("Total", "fn total(xs: list<int>) -> int",
              ["let mut sum_so_far = 0", "for x in xs", "    sum_so_far += x", "return sum_so_far"],
              ["let mut sum_so_far = 0", "for x in xs", "    if x > 0", "        sum_so_far += x", "return sum_so_far"],
              ["expect total([1, 2, 3]) == 6", "expect total([-1, 1]) == 0", "expect total([-5]) == -5"], "expect total([1, 2]) == 3",
              "public static int Total(List<int> xs) { var sum = 0; foreach (var x in xs) { sum += x; } return sum; }"),
    "largest": ("Largest", "fn largest(xs: list<int>) -> int", ["return max(xs)"], ["return xs[0]"],
                ["expect largest([1, 5, 3]) == 5", "expect largest([-2, -7]) == -2", "expect largest([4]) == 4"],
                "expect largest([5, 1]) == 5", "public static int Largest(List<int> xs) => xs.Max();"),
    "clamp": ("Clamp", "fn clamp(x: int, low: int, high: int) -> int", ["return max(low, min(x, high))"], ["return min(x, high)"],
              ["expect clamp(12, 0, 10) == 10", "expect clamp(-3, 0, 10) == 0", "expect clamp(5, 0, 10) == 5"],
              "expect clamp(5, 0, 10) == 5", "public static int Clamp(int x, int low, int high) => Math.Clamp(x, low, high);"),
    "fizzbuzz": ("FizzBuzz", "fn fizz(n: int) -> str",
                 ["if n % 15 == 0", '    return "FizzBuzz"', "elif n % 3 == 0", '    return "Fizz"', "elif n % 5 == 0",
                  '    return "Buzz"', "return to_str(n)"],
                 ["if n % 3 == 0", '    return "Fizz"', "elif n % 5 == 0", '    return "Buzz"', "return to_str(n)"],
                 ['expect fizz(15) == "FizzBuzz"', 'expect fizz(9) == "Fizz"', 'expect fizz(10) == "Buzz"', 'expect fizz(7) == "7"'],
                 'expect fizz(3) == "Fizz"',
                 'public static string Fizz(int n) { if (n % 15 == 0) return "FizzBuzz"; else if (n % 3 == 0) return "Fizz"; return n.ToString(); }'),
    "countdown": ("Countdown", "fn countdown(n: int) -> list<int>",
                  ["let out: list<int> = []", "let mut i = n", "while i > 0", "    out.Add(i)", "    i -= 1", "return out"],
                  ["let out: list<int> = []", "let mut i = n", "while i >= 0", "    out.Add(i)", "    i -= 1", "return out"],
                  ["expect countdown(3) == [3, 2, 1]", "expect countdown(0) == []", "expect len(countdown(10)) == 10"],
                  "expect countdown(1)[0] == 1",
                  "public static List<int> Countdown(int n) { var result = new List<int>(); for (int i = n; i > 0; i--) result.Add(i); return result; }"),
    "initials": ("Initials", "fn initials(name: str) -> str",
                 ["let mut result = \"\"", "for part in split(name)", "    result = result + upper(to_str(part[0]))", "return result"],
                 ["let mut result = \"\"", "for part in split(name)", "    result = result + to_str(part[0])", "return result"],
                 ['expect initials("ada lovelace") == "AL"', 'expect initials("Grace") == "G"', 'expect initials("") == ""'],
                 'expect initials("Ada Lovelace") == "AL"',
                 'public static string Initials(string name) => string.Concat(name.Split(\' \').Select(p => char.ToUpper(p[0])));'),
}


def indented(lines: list[str], by: str = "    ") -> str:
    return "\n".join(by + line for line in lines)


def function(signature: str, body: list[str]) -> str:
    return f"{signature}\n{indented(body)}"


def module(name: str, *parts: str) -> str:
    return "\n\n".join([f"module {name}", *parts])


def with_mut_result(body: list[str]) -> list[str]:
    """The last return's value kept in a let mut that is never changed (KT002)."""
    *rest, last = body
    return [*rest, f"let mut result = {last.removeprefix('return ')}", "return result"]


def with_csharp_habits(body: list[str]) -> list[str]:
    return [line.replace("let mut ", "var ").replace("let ", "var ") + (";" if line.strip().startswith(("return", "let", "var")) else "")
            for line in body]


def fenced(code: str, tag: str = "kite", fence: str = "```") -> str:
    return f"{fence}{tag}\n{code}\n{fence}"


def answers_for(task_id: str) -> list[str]:
    name, signature, good, bad, _hidden, own_test, csharp = TASKS[task_id]
    fn_name = signature.split("(")[0].removeprefix("fn ")
    correct = module(name, function(signature, good))
    buggy = module(name, function(signature, bad))
    pascal = "".join(part.capitalize() for part in fn_name.split("_"))
    return [
        f"Here is `{fn_name}` in Kite:\n\n{fenced(correct)}\n\nIt compiles cleanly and passes the tests.",
        f"{fenced(buggy)}\n\nThis compiles and passes all the tests.",
        f"Sure.\n\n{fenced(correct, tag='')}\n",
        f"Without the module line:\n\n{fenced(function(signature, good), fence='~~~')}\n",
        f"In C#:\n\n{fenced(csharp, tag='csharp')}\n\nThis is valid Kite with no C# syntax.",
        f"The function, as an indented block:\n\n{indented(correct.split(chr(10)))}\n\nDone.",
        ("Great question! To solve this, we loop over the input and build the result step by step. It's important to "
        "note that edge cases matter. In conclusion, this approach is simple and robust. I hope this helps!"),
        f"{fenced(module(name, function(signature, with_csharp_habits(good))))}\n\nI wrote idiomatic Kite with no C# syntax.",
        f"Just the body of `{fn_name}`:\n\n{fenced(chr(10).join(good))}\n",
        f"The function:\n\n{fenced(function(signature, good))}\n\nAnd a test:\n\n{fenced(f'test {chr(34)}{fn_name} works{chr(34)}' + chr(10) + '    ' + own_test)}",
        f"{fenced(module(name, function(signature, with_mut_result(good))))}\n\nI used let wherever possible.",
        f"{fenced(module('Solution', function(signature, good)))}\n\nThe code compiles and passes the tests.",
        f"{fenced(module(name, function(signature, bad), f'test {chr(34)}{fn_name} works{chr(34)}' + chr(10) + '    ' + own_test))}\n\nAll of my tests pass.",
        f"Certainly! Let's dive in.\n\n{fenced(correct)}\n\nIt's worth noting that this is a robust, elegant solution. Hope this helps!",
        f"{fenced(module(name, function(signature.replace(fn_name, pascal), good)))}\n\nThe code follows Kite's naming rules.",
        f"{fenced(module(name, function(signature, ['to_str(0)', *good])))}\n\nThere are no warnings.",
        (f"{fenced(module(name, 'use System.IO', function(signature, ['let exists = File.Exists(' + chr(34) + '/tmp/x' + chr(34) + ')', *good])))}"
        f"\n\nIt follows all of Kite's rules."),
        f"I think this should probably work:\n\n{fenced(correct)}\n",
        f"```python\ndef {fn_name}(*args):\n    pass\n```\n\nThat is the Kite version.",
        f"Here you go.\n\n{fenced(correct)}\n",
    ]


HANGS = module("Countdown", function("fn countdown(n: int) -> list<int>",
                                     ["let out: list<int> = []", "let mut i = n", "while i > 0", "    out.Add(i)", "    i += 0", "return out"]))


def main() -> None:
    lines = []
    for task_id, (name, signature, good, _bad, hidden, _own, _cs) in TASKS.items():
        folder = HERE / "tasks" / task_id
        folder.mkdir(parents=True, exist_ok=True)
        tests = "\n\n".join(f'test "hidden {index}"\n    {expectation}' for index, expectation in enumerate(hidden, start=1))
        # The reference solution beside its hidden tests: `kite test samples` proves every task can be passed.
        (folder / "solution.test.kite").write_text(f"module {name}\n\n{tests}\n")
        (folder / "solution.kite").write_text(module(name, function(signature, good)) + "\n")
        (folder / "task.toml").write_text(f'module = "{name}"\n')
        for sample, text in enumerate(answers_for(task_id)):
            lines.append(json.dumps({"id": f"{task_id}-{sample:02d}", "task_id": task_id, "response": {"text": text}}))
    lines.append(json.dumps({"id": "countdown-hangs", "task_id": "countdown",
                             "response": {"text": f"{fenced(HANGS)}\n\nThis terminates for every n."}}))
    lines.append('{"id": "cut-off", "task_id": "shout", "response": {"text": "```kite\\nmodule Sh')  # a line cut short
    lines.append(json.dumps({"id": "no-text", "task_id": "shout", "response": {}}))
    lines.append(json.dumps({"id": "not-a-string", "task_id": "shout", "response": {"text": ["module Shout"]}}))
    (HERE / "run.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
