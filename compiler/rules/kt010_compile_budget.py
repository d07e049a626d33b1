"""KT010: beyond what the static layers will compile: lambdas nested too deep, or a unit past its compile budget."""

from kite.diagnostics import Diagnostic, Rule, Severity, Stage

# Each level multiplies the compiler's work by the overloads it tries (ten for Sum): four levels take about a second,
# five several, six a minute. No honest answer nests five lambdas; the budget bounds whatever stays below this.
MAX_LAMBDA_DEPTH = 4

RULE = Rule(
    id="KT010",
    severity=Severity.ERROR,
    summary=(
        f"beyond what the C# compiler is given time for: lambdas nested more than {MAX_LAMBDA_DEPTH} deep, "
        "or a unit that took longer, or more memory, than the compile budget (the compiler and analyzers were stopped)"
    ),
    rationale=(
        "A lambda passed to an overloaded method (xs.Sum, xs.Max, ...) is compiled once per overload, and a lambda "
        "inside it once per overload of each of those: every level multiplies the work, and a few levels take minutes. "
        "A grader cannot wait that long, so deep nesting is refused before compiling, and any compile that runs past "
        "the budget is stopped: the answer fails instead of hanging the batch. So is one whose compile holds more memory "
        "than the budget's (a generated compilation, a huge literal): it fails instead of taking the grader's memory."
    ),
    example="return xs.Sum(fn(a) => xs.Sum(fn(b) => xs.Sum(fn(c) => xs.Sum(fn(d) => xs.Sum(fn(e) => a + b + c + d + e)))))",
    fix="fn inner_total(xs: list<int>, a: int) -> int\n    let mut total = 0\n    for b in xs\n        total += a + b\n    return total",
    reported_by=frozenset({Stage.AST, Stage.SESSION}),
)


def check(module, facts, file):
    for lambda_, depth in facts.lambdas:
        if depth == MAX_LAMBDA_DEPTH + 1:  # the deeper ones are inside this one: one error per nest
            yield RULE.on(
                file, lambda_,
                f"a lambda nested {depth} deep: each level multiplies the compiler's work; Kite allows {MAX_LAMBDA_DEPTH}, "
                "so give the inner levels a fn of their own",
            )


def took_too_long(file: str, line: int, column: int, seconds: float) -> Diagnostic:
    return RULE.at(file, line, column, f"took longer than {seconds:g} s to compile: the C# compiler and analyzers were stopped")


def took_too_much_memory(file: str, line: int, column: int, megabytes: int) -> Diagnostic:
    return RULE.at(file, line, column, f"took more than {megabytes} MB of memory to compile: the C# compiler and analyzers were stopped")


judges_fragments = True


def applies(module):
    return True  # any code that reaches the C# compiler has a budget to keep
