"""A mutation pass over kite's own code: each break below is written into the source, the tests that guard that code
run, and the break must make one of them fail; then the file is put back, byte for byte. A break that no test
catches is a test missing: add the test (and keep the break here).

    .venv/bin/python tests/mutation_pass.py            # every break
    .venv/bin/python tests/mutation_pass.py KT013 S3   # the breaks whose id starts with one of these
    .venv/bin/python tests/mutation_pass.py --list

Run it on a green tree (the tests it names must pass unbroken) and with no other kite work on these files: it edits
them in place, since the installed package is this folder. One line per break: caught or NOT CAUGHT, and how long
its tests took; exit 1 when any break survived or no longer applies. Not collected by pytest (its name has no
test_ prefix): it is a check of the tests, run by hand after changing code it covers or the tests that guard it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT_SECONDS = 1800


@dataclass(frozen=True)
class Break:
    id: str
    what: str  # the behaviour the break removes
    path: str  # relative to the repository
    old: str  # must occur exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest arguments: the tests that must notice


RULES = ("tests/test_kite_rules.py",)
SANDBOX = ("tests/test_supervisor.py", "tests/test_sandbox.py", "tests/test_hostile.py")
# The quick unit tests first: -x stops at the first failure, and the end-to-end runs of kite score are slow.
SCORING = ("tests/test_scoring_claims.py", "tests/scoring/test_summary.py", "tests/test_scoring_fragments.py", "tests/test_scoring_slop.py",
           "tests/scoring")
REWRITE = ("tests/test_rewrite.py", "tests/test_find.py")

BREAKS = (
    # ---- the rules
    Break("KT001", "assigning a let is reported", "compiler/rules/kt001_let_changed.py",
          "    for assignment in facts.illegal_assignments:", "    for assignment in facts.illegal_assignments[1:]:", (*RULES, "-k", "KT001")),
    Break("KT002", "a let mut never changed is reported", "compiler/rules/kt002_mut_never_changed.py",
          'if binding.kind == "mut" and not binding.changed:', 'if binding.kind == "mut" and not binding.changed and binding.line > 8:',
          (*RULES, "-k", "KT002")),
    Break("KT003", "a PascalCase function name is reported", "compiler/rules/kt003_naming.py",
          'SNAKE = re.compile(r"^_*[a-z][a-z0-9]*(_[a-z0-9]+)*$")', 'SNAKE = re.compile(r"^_*[A-Za-z][A-Za-z0-9]*(_[a-z0-9]+)*$")',
          (*RULES, "-k", "KT003")),
    Break("KT005", "a test without expect is reported", "compiler/rules/kt005_test_without_expect.py",
          "isinstance(s, n.Expect) for s in n.walk_statements(item.body)", "isinstance(s, (n.Expect, n.Let)) for s in n.walk_statements(item.body)",
          (*RULES, "-k", "KT005")),
    Break("KT006", "a pure standard-library call's result thrown away is reported", "compiler/rules/kt006_result_unused.py",
          "        return name in standard_library.PURE", "        return False", (*RULES, "-k", "KT006")),
    Break("KT008", "a type taking a standard-library name is reported", "compiler/rules/kt008_stdlib_name.py",
          'KINDS = ((n.FnDecl, "function"), (n.TypeDecl, "type"), (n.EnumDecl, "enum"))', 'KINDS = ((n.FnDecl, "function"),)',
          (*RULES, "-k", "KT008")),
    Break("KT009", "every constant cycle is reported", "compiler/rules/kt009_constant_cycle.py",
          "    for cycle in order_constants(constants, facts.functions).cycles:", "    for cycle in order_constants(constants, facts.functions).cycles[:1]:",
          (*RULES, "-k", "KT009")),
    Break("KT010", "five nested lambdas are refused before compiling", "compiler/rules/kt010_compile_budget.py",
          "        if depth == MAX_LAMBDA_DEPTH + 1:", "        if depth == MAX_LAMBDA_DEPTH + 2:", (*RULES, "-k", "KT010")),
    Break("KT011", "a name declared again in scope is reported", "compiler/rules/kt011_name_in_scope.py",
          "    for binding, earlier in facts.redeclared:", '    for binding, earlier in [(b, e) for b, e in facts.redeclared if e.kind != "param"]:',
          (*RULES, "-k", "KT011")),
    Break("KT013", "int's largest value is the edge of its range", "compiler/rules/kt013_int_range.py",
          "LARGEST = 2**31 - 1", "LARGEST = 2**31", (*RULES, "-k", "KT013")),
    Break("KT014", "a lambda typed in part is reported", "compiler/rules/kt014_lambda_types.py",
          "        if untyped and len(untyped) < len(lambda_.params):", "        if untyped and len(untyped) < len(lambda_.params) - 1:",
          (*RULES, "-k", "KT014")),
    Break("KT015", "a name of the program that a test file declares as another kind is reported", "compiler/rules/kt015_name_declared_twice.py",
          "            if other is not None:", "            if other is not None and type(other) is type(item):", (*RULES, "-k", "KT015")),
    Break("KT-fragments", "KT002 does not judge fragments", "compiler/rules/kt002_mut_never_changed.py",
          "judges_fragments = False", "judges_fragments = True", ("tests/scoring/test_rule_applicability.py",)),
    Break("KT-applies", "KT012 applies only where a + can join", "compiler/rules/kt012_text_join.py",
          '(isinstance(node, n.Binary) and node.op == "+")', '(isinstance(node, n.Binary))', ("tests/scoring/test_rule_applicability.py",)),
    Break("KT-merge", "Kite's line wins over the compiler's word for the same problem", "compiler/pipeline.py",
          "        if d.id in covered.get((d.file, d.line), ()):\n            continue\n", "",
          ("tests/test_bounds.py", "-k", "merge")),
    Break("M14-map-back", "C# diagnostics come back to the file name a #line marker could not spell", "compiler/session.py",
          "csharp = [replace(d, file=paths.get(d.file, d.file) or unit.program.path) for d in csharp]",
          "csharp = [replace(d, file=d.file or unit.program.path) for d in csharp]", ("tests/test_ranges.py",)),
    Break("M14-each-file", "each file of a unit marks its C# with its own name", "compiler/pipeline.py",
          "(csharp_path(source.path), generate(module, source.path, symbols,", "(csharp_path(source.path), generate(module, unit.program.path, symbols,",
          ("tests/test_ranges.py",)),
    # ---- the sandbox and the supervised test process
    Break("S-network", "the answer has no network", "compiler/testing/sandbox.py",
          '"--unshare-net", ', "", SANDBOX),
    Break("S-read-only", "the sandbox's root and /dev are read-only", "compiler/testing/sandbox.py",
          'words += ["--remount-ro", "/dev", "--remount-ro", "/"]', "words += []", SANDBOX),
    Break("S-seccomp", "System V IPC is refused", "compiler/testing/sandbox.py",
          'return [] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]', "return []", SANDBOX),
    Break("S-host-read-only", "the test host's folder is bound read-only", "compiler/testing/sandbox.py",
          'words += ["--ro-bind", str(host_dir), HOST_DIR,', 'words += ["--bind", str(host_dir), HOST_DIR,', SANDBOX),
    Break("S-file-size", "one file is at most file_mb", "compiler/testing/worker.py",
          "            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb << 20, limits.file_mb << 20))\n", "", SANDBOX),
    Break("S-descriptors", "an answer holds few descriptors", "compiler/testing/worker.py",
          "            resource.setrlimit(resource.RLIMIT_NOFILE, (limits.descriptors, limits.descriptors))\n", "", SANDBOX),
    Break("S-processes", "an answer starts few processes and threads", "compiler/testing/worker.py",
          "                resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))",
          "                pass", SANDBOX),
    Break("S-timeout", "each test has its time limit", "compiler/testing/worker.py",
          "            deadline = min(test_start + timeout_seconds, budget_end)", "            deadline = budget_end", SANDBOX),
    Break("S-budget", "an answer has a budget for all its tests", "compiler/testing/worker.py",
          "budget_end = budget_end or time.monotonic() + limits.budget_seconds", "budget_end = budget_end or time.monotonic() + 10 * limits.budget_seconds",
          SANDBOX),
    Break("S-signature", "a result line must carry the answer's key", "compiler/testing/worker.py",
          "if hmac.compare_digest(signature, expected) else None", "if signature else None", SANDBOX),
    Break("S-sequence", "a result line cannot be replayed", "compiler/testing/worker.py",
          'if not isinstance(event, dict) or event.get("sequence") != self.sequence:', "if not isinstance(event, dict):", SANDBOX),
    Break("S-kill-group", "everything the answer started is killed with it", "compiler/testing/worker.py",
          "            os.killpg(self.process.pid, signal.SIGKILL)", "            self.process.kill()", SANDBOX),
    Break("S-tampered-rest", "nothing after a forged line is believed", "compiler/testing/worker.py",
          "        if results and results[-1].tampered:", "        if False:", SANDBOX),
    Break("S-output-cap", "a test's output is capped on kite's side too", "compiler/testing/worker.py",
          'well_formed(str(event.get("output", "")))[: self.limits.output_chars]', 'well_formed(str(event.get("output", "")))', SANDBOX),
    Break("S-rss-watchdog", "the RSS watchdog stops memory outside the managed heap", "compiler/testing/worker.py",
          "                if owner._tree_rss() > owner.limits.rss_limit_bytes:", "                if False:",
          ("tests/test_sandbox.py", "-k", "native_memory")),
    Break("S-rss-limit", "the RSS limit is twice the heap, not far above it", "compiler/testing/worker.py",
          "return 2 * self.heap_mb * 1024 * 1024", "return 200 * self.heap_mb * 1024 * 1024", ("tests/test_sandbox.py", "-k", "native_memory")),
    Break("U-surrogate", "a lone surrogate is refused where it comes in", "compiler/source.py",
          'SURROGATE = re.compile("[\\ud800-\\udfff]")', 'SURROGATE = re.compile("[\\ud800-\\udbff]")',
          ("tests/test_hostile.py", "-k", "run_line and surrogate")),
    Break("U-literal-escapes", "generated literals carry printable ASCII only", "compiler/codegen/csharp.py",
          'PRINTABLE_ASCII = re.compile(r"[^\\x20-\\x7e]")', 'PRINTABLE_ASCII = re.compile(r"[\\r\\n]")', ("tests/test_meaning.py", "-k", "escape")),
    Break("F-cache-mac", "a find --cache entry is believed only with this user's MAC", "compiler/search/cache.py",
          "        if not hmac.compare_digest(mac, hmac.digest(self.key, payload, \"sha256\")):\n            return None\n", "",
          ("tests/test_find.py", "-k", "planted")),
    Break("R-setuid", "a file replaced in place loses setuid and setgid", "compiler/atomic.py",
          "return os.stat(path).st_mode & 0o1777", "return os.stat(path).st_mode & 0o7777", ("tests/test_rewrite.py", "-k", "setuid")),
    # ---- scoring
    Break("C-invisible", "no format or default-ignorable character splits a claim's words", "compiler/scoring/matching.py",
          '"\\u115f\\u1160', '"\\u1160', ("tests/test_scoring_claims.py",)),
    Break("C-question", "a question claims nothing", "compiler/scoring/claims.py",
          '    if prose[sentence_end - 1] == "?":', "    if False:", SCORING),
    Break("C-unless", "a claim under unless is no claim", "compiler/scoring/claims.py", "|if|unless|whether|", "|if|whether|", SCORING),
    Break("C-negation", "a claim under not is no claim", "compiler/scoring/claims.py", r"\b(?:not(?!\s+(?:only|just|merely)\b)|never|", r"\b(?:never|", SCORING),
    Break("C-wilson", "the interval is Wilson's at 95%", "compiler/scoring/summary.py", "Z95 = 1.959963984540054", "Z95 = 1.644853626951472", SCORING),
    Break("C-pass-at-k", "pass@k is Chen et al.'s estimator", "compiler/scoring/summary.py",
          "    return 1.0 - math.comb(samples - correct, k) / math.comb(samples, k)", "    return 1.0 - math.comb(samples - correct, k) / math.comb(samples + 1, k)",
          SCORING),
    Break("C-ungradable", "an answer that cannot be graded stays in the denominator", "compiler/scoring/summary.py",
          "    kite_total = len(kite) + sum(1 for r in results if not r[\"graded\"])", "    kite_total = len(kite)", SCORING),
    Break("C-tampered", "a forged result channel fails the answer", "compiler/scoring/grading.py",
          'and not verdict["tampered"] and not reasons', "and not reasons", SCORING),
    Break("C-fragments", "a rule that judges whole files says nothing of a fragment", "compiler/scoring/grading.py",
          'FRAGMENT_READINGS = frozenset({"function body"})', "FRAGMENT_READINGS = frozenset()", SCORING),
    Break("C-timeouts-cached", "a verdict that met a time limit is not cached", "compiler/scoring/cache.py",
          '    return any(test["status"] == "timeout" for test in tests) or', "    return False and", SCORING),
    Break("C-compile-rss", "the compile process is killed past its memory budget", "compiler/dotnet/compile_worker.py",
          "                if memory_limit is not None and tree_rss(process.pid) > memory_limit:", "                if False:",
          ("tests/test_hostile.py", "-k", "gigabytes")),
    Break("C-resume-digest", "--resume refuses a run that changed", "compiler/scoring/run.py",
          "            if kept is not None and kept != reader.digest(raw):", "            if False:", SCORING),
    Break("C-output-claims", "made-up test output in an output block is a claim", "compiler/scoring/grading.py",
          '        if not block.is_kite and block.language in OUTPUT_LANGUAGES:', "        if False:", SCORING),
    # ---- kite rewrite
    Break("W-changed", "a plan whose file changed since is refused", "compiler/search/rewrite.py",
          '        if _sha256(originals[entry["path"]]) != entry["sha256"]:', "        if False:", REWRITE),
    Break("W-check", "--check refuses a result that does not parse", "compiler/search/rewrite.py",
          "    if syntax.complete and first is None:", "    if True:", REWRITE),
    Break("W-all-or-none", "a failed write puts back every file written", "compiler/search/rewrite.py",
          "            write_atomically(Path(path), originals[path], modes[path])", "            pass", REWRITE),
    Break("W-same-code", "a repeated metavariable matches the same code", "compiler/search/match.py",
          "        return bindings if same(bindings[name], value) else None", "        return bindings", REWRITE),
    Break("W-parentheses", "a compound binding is parenthesised where it is not alone", "compiler/search/rewrite.py",
          'return bound.text if alone or not bound.compound else f"({bound.text})"', "return bound.text", REWRITE),
    Break("W-indent", "a multi-line template is indented as the match", "compiler/search/rewrite.py",
          '    return filled.replace("\\n", "\\n" + indent)', "    return filled", REWRITE),
)


def forget_compiled(path: Path) -> None:
    """A restored file must not be served from bytecode of its broken version (same size, same second)."""
    cached = Path(importlib.util.cache_from_source(str(path)))
    cached.unlink(missing_ok=True)


def run(one: Break) -> tuple[str, float]:
    path = REPO / one.path
    original = path.read_bytes()
    text = original.decode("utf-8")
    if text.count(one.old) != 1:
        return "NO LONGER APPLIES (the text to break is not in the file once)", 0.0
    environment = {**os.environ, "KITE_NO_SERVER": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    try:
        path.write_text(text.replace(one.old, one.new), encoding="utf-8")
        forget_compiled(path)
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *one.tests], cwd=REPO,
                              env=environment, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
        code = done.returncode
    except subprocess.TimeoutExpired:
        code = -1
    finally:
        path.write_bytes(original)
        forget_compiled(path)
    seconds = time.monotonic() - started
    verdict = {0: "NOT CAUGHT", 1: "caught", -1: "NOT CAUGHT (timed out)"}.get(code, f"BROKE THE RUN (pytest exit {code})")
    return verdict, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("only", nargs="*", help="run the breaks whose id starts with one of these")
    parser.add_argument("--list", action="store_true", help="list the breaks and exit")
    args = parser.parse_args()
    chosen = [b for b in BREAKS if not args.only or any(b.id.startswith(prefix) for prefix in args.only)]
    if args.list:
        for one in chosen:
            print(f"{one.id:20} {one.path}: {one.what}")
        return 0
    survived = 0
    for one in chosen:
        verdict, seconds = run(one)
        survived += verdict != "caught"
        print(f"{one.id:20} {verdict:12} {seconds:6.1f} s  {one.what}", flush=True)
    print(f"{len(chosen) - survived} of {len(chosen)} breaks caught")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
