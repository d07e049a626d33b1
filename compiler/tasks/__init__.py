"""Task sets (docs/tasks.md): checking a task before it teaches or grades anything (check.py), and measuring how
strong its hidden tests are by mutating its reference solution (mutants.py makes them, mutation.py runs them)."""
