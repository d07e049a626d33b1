"""Task sets (docs/tasks.md): checking a task before it teaches or grades anything (check.py), and measuring how
strong its hidden tests are by mutating its reference solution (mutants.py makes them, mutation.py runs them)."""

DEFAULT_MAX_MUTANTS = 24  # per task: enough to find a weak test set, few enough that CI's sample set takes about a minute
