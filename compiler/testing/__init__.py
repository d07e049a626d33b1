"""Running Kite tests out of process: the worker supervisor and the test runner."""
