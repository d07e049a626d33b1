"""Scoring model answers: prose and code apart, fragments read as modules, claims checked, slop found."""
