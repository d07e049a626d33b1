"""Only the diagnostics not reported before: what an agent's edit tool appends to its result after each write.

Repeating what the agent already heard is worse than silence: it learns to skim past the noise, and the one new
error goes with it. The state file remembers what the last check of each file reported, keyed by file, severity,
code and message, never by position: a message that only moved four lines down is not new. The key is counted as a
multiset (a second identical message is new), and the state holds only the latest check of each file, so a
diagnostic that was fixed and then comes back is new again.

The state of a file is kept per layer (kite, compiler, analyzers): a check updates only the layers it ran, so a
`--layer kite` check between two full checks leaves the C# layers' part alone, and the next full check does not
repeat every C# diagnostic. A version 1 state (one multiset per file) is read as empty: everything is new once.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from kite.atomic import write_atomically
from kite.diagnostics import Diagnostic, Layer
from kite.errors import UnusableInput
from kite.source import read_regular

STATE_VERSION = 2
MAX_STATE_BYTES = 1 << 28  # a key per diagnostic reported: far above any real state, a bound on loading one
OLDER_VERSIONS = (1,)  # read as an empty state, not as unusable: an upgrade of kite repeats a check's report once

Key = tuple[str, str, str]  # severity, code, message


def file_key(path: str) -> str:
    """One name per file however the caller spells it (relative, absolute, through a symlink)."""
    return os.path.realpath(path)


def key_of(d: Diagnostic) -> Key:
    return (d.severity.value, d.id, d.message)


class ReportedState:
    """What the latest check of each file reported, as a multiset of keys per file and layer."""

    def __init__(self, files: dict[str, dict[Layer, Counter]] | None = None):
        self.files: dict[str, dict[Layer, Counter]] = files or {}

    @classmethod
    def load(cls, path: str) -> ReportedState:
        """A missing file is an empty state (the first check: everything is new); anything else unreadable is unusable."""
        if not os.path.exists(path):
            return cls()
        try:
            text = read_regular(path, "a --new-only state", MAX_STATE_BYTES).decode("utf-8")  # never blocks on a FIFO
        except UnicodeDecodeError as error:
            raise UnusableInput(f"{path}: cannot read the --new-only state ({error})") from None
        try:
            document = json.loads(text)
            if document.get("version") in OLDER_VERSIONS:
                return cls()
            if document.get("version") != STATE_VERSION:
                raise ValueError(f"version {document.get('version')!r}, expected {STATE_VERSION}")
            return cls({
                file: {Layer(layer): Counter({(severity, code, message): count for severity, code, message, count in entries})
                       for layer, entries in layers.items()}
                for file, layers in document["files"].items()
            })
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise UnusableInput(f"{path}: not a kite --new-only state file ({error})") from None

    def save(self, path: str) -> None:
        """Written beside and renamed into place: a reader never sees half a state."""
        document = {
            "version": STATE_VERSION,
            "files": {
                file: {layer.value: [[*key, count] for key, count in sorted(counts.items())]
                       for layer, counts in sorted(layers.items(), key=lambda item: item[0].order) if counts}
                for file, layers in sorted(self.files.items()) if any(layers.values())
            },
        }
        try:
            write_atomically(Path(path), json.dumps(document, indent=1).encode(), 0o600)
        except OSError as error:  # a folder that is missing or read-only, a name too long: the caller's to fix
            raise UnusableInput(f"{path}: cannot write the --new-only state ({error.strerror})") from None

    def update(self, checked_files, found: list[Diagnostic], layers=tuple(Layer)) -> list[Diagnostic]:
        """The diagnostics in `found` that the state had not reported, in their order; then the state holds `found`
        as the latest report of the `layers` that ran, for every file in `checked_files` (other files, and the layers
        that did not run, keep theirs).

        With more copies of a key than before, the later ones are the new ones."""
        ran = set(layers)
        now: dict[tuple[str, Layer], Counter] = {(file_key(file), layer): Counter() for file in checked_files for layer in ran}
        fresh = []
        for d in found:
            place = (file_key(d.file), d.layer)
            counts = now.setdefault(place, Counter())
            counts[key_of(d)] += 1
            if counts[key_of(d)] > self.files.get(place[0], {}).get(place[1], Counter())[key_of(d)]:
                fresh.append(d)
        for (file, layer), counts in now.items():
            self.files.setdefault(file, {})[layer] = counts
        return fresh


def new_diagnostics(sources, reports, state_path: str) -> list[Diagnostic]:
    """The diagnostics of `reports` that the state at `state_path` had not reported, in order; the state is then
    updated with every unit that was checked.

    `sources` are the units' UnitSource (their program and test files), `reports` their UnitReport in the same order;
    a unit that could not be checked leaves its files' state as it was, and a check updates only the layers it ran."""
    state = ReportedState.load(state_path)
    fresh = []
    for source, report in zip(sources, reports, strict=True):
        if report.check is not None:
            fresh += state.update([source.program, *source.tests], list(report.check.diagnostics), report.check.layers_run)
    state.save(state_path)
    return fresh
