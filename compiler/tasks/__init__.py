"""Task sets (docs/tasks.md): checking a task before it teaches or grades anything (check.py), measuring how strong
its hidden tests are by mutating its reference solution (mutants.py makes them, mutation.py runs them), and making
them stronger (augment.py), on inputs made by type (values.py, inputs.py) run through a probe (probe.py)."""

DEFAULT_MAX_MUTANTS = 24  # per task: enough to find a weak test set, few enough that CI's sample set takes about a minute
DEFAULT_MAX_INPUTS = 40  # per function: enough to reach most boundaries from a test's arguments, few enough to run in a second
