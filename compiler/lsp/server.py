"""`kite lsp`: a language server over stdio (pygls), holding one `kite.session.Session`.

Two speeds, as rust-analyzer's and Gleam's servers work, each in a thread of its own so no request waits behind a
check: Kite's own layer after a short quiet period on every change,
the C# layers (compiler and analyzers, in the session's compile process) after a longer one or on save. A C# result
for a unit whose text changed meanwhile is dropped: only the latest version's is ever shown. Lazy and honest: the
compile process starts on the first C# check, is stopped after an idle time and comes back on demand; without
`dotnet` the server keeps serving Kite's layer and says once why the C# layers are absent.

Definition, references, rename, workspace symbols, call hierarchy and semantic tokens come from one index of every
.kite file of the workspace folders (kite.graph.index, the one `kite graph` prints), each changed file read again
when a request next needs it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import traceback
from dataclasses import dataclass

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.uris import from_fs_path, to_fs_path

from kite import __version__
from kite.diagnostics import Diagnostic, Layer, Severity
from kite.errors import ToolchainError, UnusableInput
from kite.graph.build import index_source
from kite.graph.index import Workspace
from kite.lsp import features, workspace as across
from kite.pipeline import CheckResult
from kite.session import Session
from kite.source import NotUnicode, SourceFile, decode
from kite.syntax import nodes as n
from kite.syntax.frontend import ItemCache
from kite.syntax.rules import SYNTAX
from kite.units import Unit, find_units, kite_files

STATUS_COMMAND = "kite.status"
RELEASED = "kite: the C# compiler process was stopped"


@dataclass
class Settings:
    """From the client's initializationOptions (camelCase there)."""

    kite_delay: float = 0.05  # seconds of quiet before Kite's layer runs
    csharp_delay: float = 0.25  # seconds of quiet before the C# layers run (on save: at once)
    idle_release: float = 300.0  # seconds without a C# check before the compile process is stopped

    @classmethod
    def of(cls, options) -> Settings:
        options = options if isinstance(options, dict) else {}
        names = {"kiteDelay": "kite_delay", "csharpDelay": "csharp_delay", "idleRelease": "idle_release"}
        return cls(**{field: float(options[key]) for key, field in names.items() if isinstance(options.get(key), (int, float))})


class KiteProtocol(LanguageServerProtocol):
    """pygls drops a request whose params do not fit the method's (the client would wait forever): answer it with
    JSON-RPC's invalid-params error (-32602) instead. A request about a buffer that is not Unicode text (JSON-RPC can
    carry a lone surrogate) answers null, which every request may: the buffer's one diagnostic says why."""

    def _send_handler_result(self, future, *, msg_id):
        if not future.cancelled() and isinstance(future.exception(), NotUnicode):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, result=None)
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if "id" in data and "method" in data:
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}").to_response_error()
                self._send_response(data["id"], None, error)
            raise


def strict_converter():
    """pygls's converter, but a param of the wrong JSON type is invalid (-32602), as a missing one is: cattrs would
    make `"newName": 5` the name "5" and `"line": 1.5` line 1, answering a question the client did not ask."""
    converter = default_converter()

    def exactly(kind: type, accepted: tuple[type, ...]):
        def structure(value, _type):
            if isinstance(value, bool) is not (kind is bool) or not isinstance(value, accepted):
                raise TypeError(f"{value!r} is not {kind.__name__}")
            return kind(value)
        converter.register_structure_hook(kind, structure)

    exactly(str, (str,))
    exactly(int, (int,))
    exactly(float, (int, float))
    exactly(bool, (bool,))
    return converter


class KiteLanguageServer(LanguageServer):
    def __init__(self):
        super().__init__("kite", __version__, protocol_cls=KiteProtocol, converter_factory=strict_converter)
        # An edit parses again only the items it changed: Kite's layer on a long file within an editor's keystroke.
        self.session = Session(items=ItemCache())
        self.settings = Settings()
        self.pull = False  # the client asks for diagnostics (textDocument/diagnostic) instead of taking pushes
        self.refresh = False  # it can be told to ask again (workspace/diagnostic/refresh)
        self.csharp_absent: str | None = None  # why the C# layers cannot run, once known
        self.results: dict[str, tuple[Unit, CheckResult]] = {}  # program path -> the latest check and what it checked
        self.pending: dict[tuple[str, str], asyncio.Task] = {}  # (uri, speed) -> the check waiting for quiet
        self.release: asyncio.Task | None = None
        self.index = Workspace()  # every .kite file of the workspace folders, the open ones as the editor has them
        self.stale: set[str] = set()  # files changed since they were indexed: indexed again when a request needs it
        # One thread for the C# layers: the compile process answers one request at a time.
        self.csharp_thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kite-csharp")
        self.kite_thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kite-layer")

    # ---- units from the editor's buffers, the disk where a file is not open

    def source(self, path: str) -> SourceFile:
        document = self.workspace.text_documents.get(from_fs_path(path))
        if document is not None:
            return SourceFile(path, document.source.replace("\r\n", "\n").replace("\r", "\n"))
        with open(path, "rb") as file:
            return decode(path, file.read())

    def unit_of(self, uri: str) -> Unit:
        """The file's unit as `kite check` pairs it: NAME.test.kite with NAME.kite beside it."""
        [found] = find_units([file_path(uri)])
        return Unit(self.source(found.program), tuple(self.source(test) for test in found.tests))

    # ---- the workspace index (kite.graph.index)

    def index_folders(self) -> None:
        roots = [root for folder in self.workspace.folders.values() if (root := to_fs_path(folder.uri))] or (
            [self.workspace.root_path] if self.workspace.root_path else [])
        for root in roots:
            try:
                found = kite_files([root])
            except UnusableInput:
                continue  # a folder without Kite files
            self.stale.update(str(path) for path in found)

    def current_index(self) -> Workspace:
        """The index with every changed file read again (from its buffer when open, else the disk)."""
        while self.stale:
            path = self.stale.pop()
            try:
                self.index.update(index_source(self.source(path)))
            except (OSError, UnusableInput):
                self.index.remove(path)
        return self.index

    # ---- checks

    def schedule(self, uri: str, speed: str, delay: float) -> None:
        previous = self.pending.pop((uri, speed), None)
        if previous is not None:
            previous.cancel()
        self.pending[(uri, speed)] = asyncio.ensure_future(self.check_later(uri, speed, delay))

    def changed(self, uri: str, *, saved: bool = False) -> None:
        self.schedule(uri, "kite", 0 if saved else self.settings.kite_delay)
        if self.csharp_absent is None:
            self.schedule(uri, "csharp", 0 if saved else self.settings.csharp_delay)

    async def check_later(self, uri: str, speed: str, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self.check_now(uri, speed)
        except NotUnicode:  # a buffer no layer can take: one diagnostic where it stops being text
            if not self.pull:
                document = self.workspace.text_documents.get(uri)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, self.diagnostics_of(uri), document and document.version))
        except UnusableInput as error:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, str(error)))
        except Exception as error:  # a bug in kite: said in the editor's log, and the server goes on
            traceback.print_exc()
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"kite: internal error: {type(error).__name__}: {error}"))

    async def check_now(self, uri: str, speed: str) -> None:
        unit = self.unit_of(uri)
        result: CheckResult | None
        if speed == "kite":
            if self.results.get(unit.program.path, (None, None))[0] == unit:
                return  # this text was checked already, maybe through every layer: Kite's alone must not replace that
            # In a thread of its own: no request waits behind Kite's layer (nor behind the C# layers, in theirs).
            result = await asyncio.get_running_loop().run_in_executor(self.kite_thread, self.kite_check, unit)
            if self.unit_of(uri) != unit:
                return  # edited meanwhile: the newer text's check is on its way
            self.results[unit.program.path] = (unit, result)
        else:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(self.csharp_thread, self.check_csharp, unit, loop)
            self.release_later()
            if result is None or self.unit_of(uri) != unit:
                return  # no C# layers, or the unit changed while they ran: a newer check is on its way
            self.results[unit.program.path] = (unit, result)
        self.publish(unit, csharp=speed == "csharp")

    def kite_check(self, unit: Unit) -> CheckResult:
        return self.session.check(unit, through=Layer.KITE)

    def check_csharp(self, unit: Unit, loop: asyncio.AbstractEventLoop) -> CheckResult | None:
        """In the C# thread: all layers, or None (and why, once) when .NET is not there."""
        if self.csharp_absent is not None:
            return None
        try:
            return self.session.check(unit)
        except ToolchainError as error:
            self.csharp_absent = str(error)
            message = f"kite: only Kite's own layer is checked: the C# compiler and analyzers are absent ({error})"
            loop.call_soon_threadsafe(self.window_show_message, types.ShowMessageParams(types.MessageType.Warning, message))
            return None

    def release_later(self) -> None:
        if self.release is not None:
            self.release.cancel()
        self.release = asyncio.ensure_future(self.release_when_idle())

    async def release_when_idle(self) -> None:
        await asyncio.sleep(self.settings.idle_release)
        if self.session.compiler.process is None:
            return
        await asyncio.get_running_loop().run_in_executor(self.csharp_thread, self.session.compiler.stop)
        self.window_log_message(types.LogMessageParams(
            types.MessageType.Info, f"{RELEASED} after {self.settings.idle_release:g} s idle; it starts again when needed"))

    # ---- diagnostics out

    def diagnostics_of(self, uri: str) -> list[types.Diagnostic]:
        """The latest check of the file's current text (Kite's layer at once when none is there yet); for a text that is
        not Unicode, one error there (or none, when it is another file of the unit that is not)."""
        try:
            unit = self.unit_of(uri)
        except NotUnicode as refused:
            if refused.path != to_fs_path(uri):
                return []
            lines = self.workspace.get_text_document(uri).source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            return [lsp_diagnostic(SYNTAX.at(refused.path, refused.line, refused.column, refused.reason), lines)]
        cached = self.results.get(unit.program.path)
        if cached is not None and cached[0] == unit:
            result = cached[1]
        else:
            result = self.session.check(unit, through=Layer.KITE)
            self.results[unit.program.path] = (unit, result)
        path = file_path(uri)
        lines = self.source(path).text.split("\n")
        mine = [d for d in result.diagnostics if d.file == path or (d.file not in {s.path for s in unit.sources} and path == unit.program.path)]
        return [lsp_diagnostic(d, lines) for d in mine]

    def publish(self, unit: Unit, csharp: bool) -> None:
        """Push to a client that takes pushes; a client that pulls gets Kite's layer when it asks, so it is told to
        ask again only when the C# layers have something new."""
        if self.pull:
            if self.refresh and csharp:
                self.workspace_diagnostic_refresh(None)
            return
        for source in unit.sources:
            uri = from_fs_path(source.path)
            document = self.workspace.text_documents.get(uri)
            if document is not None:
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri, self.diagnostics_of(uri), document.version))

    def status(self) -> dict:
        worker = self.session.compiler
        state = "absent" if self.csharp_absent else ("running" if worker.process is not None else "stopped")
        return {"csharp": state, "why": self.csharp_absent or ""}


def lsp_diagnostic(d: Diagnostic, lines: list[str]) -> types.Diagnostic:
    span = features.diagnostic_span(d, lines)
    link = features.rule_link(d.id)
    return types.Diagnostic(
        range=lsp_range(span, lines),
        message=d.message,
        severity=types.DiagnosticSeverity.Error if d.severity is Severity.ERROR else types.DiagnosticSeverity.Warning,
        code=d.id,
        code_description=types.CodeDescription(href=link) if link else None,
        source=features.SOURCES[Layer(d.layer)],
        related_information=[related_information(related, lines if related.file == d.file else []) for related in d.related] or None,
    )


def related_information(related, lines: list[str]) -> types.DiagnosticRelatedInformation:
    """A related location as LSP has it: 0-based, in UTF-16 units where the file's text is at hand."""
    position = lsp_position(lines, max(related.line - 1, 0), max(related.column - 1, 0))
    return types.DiagnosticRelatedInformation(types.Location(from_fs_path(related.file), types.Range(position, position)), related.message)


def utf16(text: str, column: int) -> int:
    return len(text[:column].encode("utf-16-le", "surrogatepass")) // 2


def code_points(text: str, units: int) -> int:
    """A UTF-16 column from the client back to a code-point column."""
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def lsp_position(lines: list[str], line: int, column: int) -> types.Position:
    return types.Position(line, utf16(lines[line] if line < len(lines) else "", column))


def lsp_range(span: features.EditorRange, lines: list[str]) -> types.Range:
    return types.Range(lsp_position(lines, span.line, span.column), lsp_position(lines, span.end_line, span.end_column))


server = KiteLanguageServer()


@server.feature(types.INITIALIZE)
def initialize(ls: KiteLanguageServer, params: types.InitializeParams) -> None:
    ls.settings = Settings.of(params.initialization_options)
    capabilities = params.capabilities
    ls.pull = capabilities.text_document is not None and capabilities.text_document.diagnostic is not None
    ls.refresh = bool(capabilities.workspace and capabilities.workspace.diagnostics and capabilities.workspace.diagnostics.refresh_support)


@server.feature(types.INITIALIZED)
def initialized(ls: KiteLanguageServer, params: types.InitializedParams) -> None:
    ls.index_folders()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files_changed(ls: KiteLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A .kite file created, changed or deleted outside the editor: read again (or dropped) when next needed."""
    for change in params.changes:
        if change.uri.endswith(".kite"):
            ls.stale.add(file_path(change.uri))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KiteLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.stale.add(file_path(params.text_document.uri))
    ls.changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: KiteLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.stale.add(file_path(params.text_document.uri))
    ls.changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: KiteLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.changed(params.text_document.uri, saved=True)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KiteLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.stale.add(file_path(params.text_document.uri))  # as it is on disk again
    for speed in ("kite", "csharp"):
        task = ls.pending.pop((params.text_document.uri, speed), None)
        if task is not None:
            task.cancel()
    if not ls.pull:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, []))


@server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(identifier="kite", inter_file_dependencies=True, workspace_diagnostics=False))
def pull_diagnostics(ls: KiteLanguageServer, params: types.DocumentDiagnosticParams):
    return types.RelatedFullDocumentDiagnosticReport(items=ls.diagnostics_of(params.text_document.uri))


def file_path(uri: str) -> str:
    """The path of a file: URI; kite serves no other kind."""
    path = to_fs_path(uri)
    if path is None:
        raise UnusableInput(f"{uri}: not a file, and kite serves files only")
    return path


def parsed_of(ls: KiteLanguageServer, uri: str) -> features.Parsed:
    """The document as the editor has it, its types told with what the module's other files declare."""
    document = ls.workspace.get_text_document(uri)
    path = file_path(uri)
    index = ls.current_index()
    file = index.files.get(path)
    shared = [s.node for s in index.module_symbols(file.group).values()
              if s.file != path and s.kind in ("fn", "type", "enum", "const")] if file is not None else []
    return features.Parsed.of(path, document.source.replace("\r\n", "\n"), shared)


def cursor(parsed: features.Parsed, position: types.Position) -> tuple[int, int]:
    text = parsed.lines[position.line] if position.line < len(parsed.lines) else ""
    return position.line, code_points(text, position.character)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: KiteLanguageServer, params: types.HoverParams):
    parsed = parsed_of(ls, params.text_document.uri)
    found = features.hover(parsed, *cursor(parsed, params.position))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, found)) if found else None


def lines_of(ls: KiteLanguageServer, path: str) -> list[str]:
    try:
        return ls.source(path).text.split("\n")
    except (OSError, UnusableInput):
        return []


def location(ls: KiteLanguageServer, path: str, span: features.EditorRange) -> types.Location:
    return types.Location(from_fs_path(path), lsp_range(span, lines_of(ls, path)))


def at(ls: KiteLanguageServer, params) -> tuple[Workspace, str, int, int]:
    """The index, the file and the cursor (code points) of a request about a position."""
    path = file_path(params.text_document.uri)
    lines = lines_of(ls, path)
    text = lines[params.position.line] if params.position.line < len(lines) else ""
    return ls.current_index(), path, params.position.line, code_points(text, params.position.character)


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
def inlay_hint(ls: KiteLanguageServer, params: types.InlayHintParams):
    """The type kite.analyze's pass gives each `let` without a declared one, after its name."""
    parsed = parsed_of(ls, params.text_document.uri)
    rows = range(params.range.start.line, params.range.end.line + 1)
    return [types.InlayHint(lsp_position(parsed.lines, line, column), label, kind=types.InlayHintKind.Type)
            for line, column, label in features.inlay_hints(parsed, rows)]


@server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP, types.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[","]))
def signature_help(ls: KiteLanguageServer, params: types.SignatureHelpParams):
    parsed = parsed_of(ls, params.text_document.uri)
    functions: dict[str, n.FnDecl | n.TypeDecl] = {name: t for name, t in parsed.types.items() if isinstance(t, n.TypeDecl)}
    functions.update(parsed.functions)
    found = features.signature_help(parsed, *cursor(parsed, params.position), functions)
    if found is None:
        return None
    return types.SignatureHelp(
        [types.SignatureInformation(label, documentation=doc or None,
                                    parameters=[types.ParameterInformation(param) for param in params_])
         for label, params_, doc in found.signatures],
        active_signature=found.active_signature, active_parameter=found.active_parameter)


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
def folding_range(ls: KiteLanguageServer, params: types.FoldingRangeParams):
    parsed = parsed_of(ls, params.text_document.uri)
    return [types.FoldingRange(first, last) for first, last in features.folding_ranges(parsed)]


SEMANTIC_LEGEND = types.SemanticTokensLegend(list(across.TOKEN_TYPES), list(across.TOKEN_MODIFIERS))


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, SEMANTIC_LEGEND)
def semantic_tokens(ls: KiteLanguageServer, params: types.SemanticTokensParams):
    """What each name is (function, type, field, parameter, ...), from the index; LSP's relative encoding, in UTF-16."""
    path = file_path(params.text_document.uri)
    index = ls.current_index()
    lines = lines_of(ls, path)
    data, previous_line, previous_start = [], 0, 0
    for line, column, length, kind, modifiers in across.semantic_tokens(index, path):
        text = lines[line] if line < len(lines) else ""
        start, end = utf16(text, column), utf16(text, column + length)
        delta_start = start - previous_start if line == previous_line else start
        bits = sum(1 << across.TOKEN_MODIFIERS.index(m) for m in modifiers)
        data += [line - previous_line, delta_start, end - start, across.TOKEN_TYPES.index(kind), bits]
        previous_line, previous_start = line, start
    return types.SemanticTokens(data=data)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: KiteLanguageServer, params: types.DefinitionParams):
    found = across.definition(*at(ls, params))
    return location(ls, found.path, found.range) if found else None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: KiteLanguageServer, params: types.ReferenceParams):
    found = across.references(*at(ls, params), params.context.include_declaration)
    return [location(ls, spot.path, spot.range) for spot in found]


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
def document_highlight(ls: KiteLanguageServer, params: types.DocumentHighlightParams):
    lines = lines_of(ls, file_path(params.text_document.uri))
    return [types.DocumentHighlight(lsp_range(span, lines), types.DocumentHighlightKind.Write if declared else types.DocumentHighlightKind.Read)
            for span, declared in across.highlights(*at(ls, params))]


REQUEST_FAILED = -32803  # LSP's code for a request that is understood and refused


def refusal(refused: across.Refused) -> JsonRpcException:
    return JsonRpcException(message=str(refused), code=REQUEST_FAILED)


def word_under(ls: KiteLanguageServer, params) -> str | None:
    parsed = parsed_of(ls, params.text_document.uri)
    found = parsed.word_at(*cursor(parsed, params.position))
    return found[0] if found else None


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: KiteLanguageServer, params: types.PrepareRenameParams):
    try:
        span, name = across.prepare_rename(*at(ls, params), word_under(ls, params))
    except across.Refused as refused:
        raise refusal(refused) from None
    lines = lines_of(ls, file_path(params.text_document.uri))
    return types.PrepareRenamePlaceholder(lsp_range(span, lines), name)


@server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
def rename(ls: KiteLanguageServer, params: types.RenameParams):
    """One WorkspaceEdit over every file of the module; refused (an error the editor shows) where it cannot be done."""
    try:
        edits = across.rename(*at(ls, params), params.new_name, word_under(ls, params))
    except across.Refused as refused:
        raise refusal(refused) from None
    changes = {}
    for path, spots in edits.items():
        lines = lines_of(ls, path)
        changes[from_fs_path(path)] = [types.TextEdit(lsp_range(span, lines), text) for span, text in spots]
    return types.WorkspaceEdit(changes=changes)


@server.feature(types.WORKSPACE_SYMBOL)
def workspace_symbol(ls: KiteLanguageServer, params: types.WorkspaceSymbolParams):
    found = across.workspace_symbols(ls.current_index(), params.query)
    return [types.SymbolInformation(name=s.id, kind=INDEX_KINDS[s.kind], location=location(ls, s.file, across.editor_range(s.range)),
                                    container_name=s.container or s.id.split(".", 1)[0]) for s in found]


INDEX_KINDS = {
    "fn": types.SymbolKind.Function, "type": types.SymbolKind.Struct, "field": types.SymbolKind.Field,
    "enum": types.SymbolKind.Enum, "member": types.SymbolKind.EnumMember, "const": types.SymbolKind.Constant,
    "test": types.SymbolKind.Method,
}


def call_item(ls: KiteLanguageServer, symbol) -> types.CallHierarchyItem:
    lines = lines_of(ls, symbol.file)
    return types.CallHierarchyItem(
        name=symbol.name, kind=INDEX_KINDS[symbol.kind], uri=from_fs_path(symbol.file),
        range=lsp_range(across.editor_range(symbol.range), lines),
        selection_range=lsp_range(across.editor_range(symbol.name_range), lines), detail=symbol.id, data=symbol.id)


def item_symbol(ls: KiteLanguageServer, item: types.CallHierarchyItem):
    path = file_path(item.uri)
    index = ls.current_index()
    file = index.files.get(path)
    found = index.module_symbols(file.group).get(item.data) if file is not None and isinstance(item.data, str) else None
    return index, found


@server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
def prepare_call_hierarchy(ls: KiteLanguageServer, params: types.CallHierarchyPrepareParams):
    found = across.call_item(*at(ls, params))
    return [call_item(ls, found)] if found is not None else None


@server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
def incoming_calls(ls: KiteLanguageServer, params: types.CallHierarchyIncomingCallsParams):
    index, symbol = item_symbol(ls, params.item)
    if symbol is None:
        return None
    return [types.CallHierarchyIncomingCall(call_item(ls, caller), [lsp_range(span, lines_of(ls, caller.file)) for span in spots])
            for caller, spots in across.incoming_calls(index, symbol)]


@server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
def outgoing_calls(ls: KiteLanguageServer, params: types.CallHierarchyOutgoingCallsParams):
    index, symbol = item_symbol(ls, params.item)
    if symbol is None:
        return None
    lines = lines_of(ls, symbol.file)
    return [types.CallHierarchyOutgoingCall(call_item(ls, callee), [lsp_range(span, lines) for span in spots])
            for callee, spots in across.outgoing_calls(index, symbol)]


SYMBOL_KINDS = {
    "function": types.SymbolKind.Function, "struct": types.SymbolKind.Struct, "enum": types.SymbolKind.Enum,
    "constant": types.SymbolKind.Constant, "test": types.SymbolKind.Method, "field": types.SymbolKind.Field,
    "member": types.SymbolKind.EnumMember,
}


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: KiteLanguageServer, params: types.DocumentSymbolParams):
    parsed = parsed_of(ls, params.text_document.uri)

    def convert(symbol: features.Symbol) -> types.DocumentSymbol:
        full = lsp_range(symbol.span, parsed.lines)
        return types.DocumentSymbol(symbol.name, SYMBOL_KINDS[symbol.kind], full, full, children=[convert(c) for c in symbol.children])

    return [convert(symbol) for symbol in features.symbols(parsed)]


COMPLETION_KINDS = {
    "variable": types.CompletionItemKind.Variable, "function": types.CompletionItemKind.Function,
    "struct": types.CompletionItemKind.Struct, "enum": types.CompletionItemKind.Enum, "field": types.CompletionItemKind.Field,
    "member": types.CompletionItemKind.EnumMember, "keyword": types.CompletionItemKind.Keyword,
}


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
def completion(ls: KiteLanguageServer, params: types.CompletionParams):
    parsed = parsed_of(ls, params.text_document.uri)
    items = [types.CompletionItem(c.label, kind=COMPLETION_KINDS[c.kind], detail=c.detail or None)
             for c in features.completions(parsed, *cursor(parsed, params.position))]
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_actions(ls: KiteLanguageServer, params: types.CodeActionParams):
    """The fixes Kite's own layer attaches to its diagnostics (kite.diagnostics.Fix), over the current text (not the
    client's copy of old diagnostics); a safe one is preferred, one that renames is offered too."""
    uri = params.text_document.uri
    path = file_path(uri)
    lines = ls.source(path).text.split("\n")
    wanted = range(params.range.start.line + 1, params.range.end.line + 2)
    actions = []
    for d in ls.session.check(ls.unit_of(uri), through=Layer.KITE).diagnostics:
        if d.fix is not None and d.file == path and d.line in wanted:
            edits = [types.TextEdit(lsp_range(span, lines), text) for span, text in features.fix_edits(d.fix)]
            actions.append(types.CodeAction(d.fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[lsp_diagnostic(d, lines)],
                                            is_preferred=d.fix.safe, edit=types.WorkspaceEdit(changes={uri: edits})))
    return actions


def formatted(ls: KiteLanguageServer, uri: str, rows: range | None = None) -> list[types.TextEdit] | None:
    """kite.format's edits for the document as the editor has it; None (and why, in the log) when it does not parse."""
    from kite.format import NotKite

    text = ls.workspace.get_text_document(uri).source
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        edits = features.formatting_edits(file_path(uri), text, rows)
    except NotKite as error:
        ls.window_log_message(types.LogMessageParams(types.MessageType.Info, f"kite: not formatted: {error.diagnostic.render()}"))
        return None
    return [types.TextEdit(lsp_range(span, lines), new_text) for span, new_text in edits]


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: KiteLanguageServer, params: types.DocumentFormattingParams):
    return formatted(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
def range_formatting(ls: KiteLanguageServer, params: types.DocumentRangeFormattingParams):
    """The whole document's layout, kept only where it changes the lines of the range."""
    return formatted(ls, params.text_document.uri, range(params.range.start.line, params.range.end.line + 1))


@server.command(STATUS_COMMAND)
def status(ls: KiteLanguageServer, *_args):
    """Whether the C# layers' process runs now, is stopped (idle, or never needed yet) or absent (and why)."""
    return ls.status()


@server.feature(types.SHUTDOWN)
def shutdown(ls: KiteLanguageServer, *_args) -> None:
    ls.csharp_thread.shutdown(wait=False, cancel_futures=True)
    ls.kite_thread.shutdown(wait=False, cancel_futures=True)
    ls.session.close()


def serve() -> None:
    server.start_io()
