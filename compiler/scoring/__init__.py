"""`kite score`: a whole run of model answers through the four layers, summed up into rates a paper can quote.

Reading one answer: prose and code apart (answer.py), fragments read as modules (fragments.py), claims checked
(claims.py), slop found (slop.py). Grading a run: tasks.py, grading.py, formats.py, summary.py, and run.py with the
run's reading (reading.py), executors (executors.py), verdict cache (cache.py) and results file (resume.py)."""
