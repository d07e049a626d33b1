"""Reading results for people: the review page of a scored run (`kite report`) and the code frames of
`kite check --format full` (which characters of a line a diagnostic is about)."""
