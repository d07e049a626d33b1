"""The .NET side: pinned packages, the CoreCLR boot, and the Roslyn service."""
