"""`kite lsp`: the language server (server.py) over the editor features (features.py)."""
