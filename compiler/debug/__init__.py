"""kite dap and kite debug: a debugger on Kite lines with Kite names (docs/debugger.md)."""
