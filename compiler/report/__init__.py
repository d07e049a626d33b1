"""Reading results for people: the review page of a scored run (`kite report`). The underlines it shares with
`kite check --format full` are kite.frames."""
