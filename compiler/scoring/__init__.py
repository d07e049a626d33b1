"""`kite score`: a whole run of model answers through the four layers, summed up into rates a paper can quote.

The answer half (answer.py, fragments.py, claims.py, slop.py) reads one answer; the run half (tasks.py, grading.py,
formats.py, summary.py, run.py) grades it, writes its result line and adds the run up."""
