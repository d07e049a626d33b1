"""`kite lsp` through a real LSP client (pytest-lsp): push and pull diagnostics with both speeds, hover, definition,
symbols, completion, quick fixes, the lazy C# layers and the server without dotnet."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from kite.lsp.server import RELEASED

SERVER = [sys.executable, "-m", "kite.cli.main", "lsp"]
WAIT_SECONDS = 60  # the first C# check starts .NET; nothing here waits that long when it works
FAST = {"kiteDelay": 0.02, "csharpDelay": 0.0, "idleRelease": 600}

BROKEN = """module Fixing

fn average(xs: list<dec>) -> dec
    let total = sum(xs)
    total = total + 1.0
    return total

fn first_name(name: str?) -> str
    return name.Split(' ')[0]
"""
FIXED = BROKEN.replace("let total", "let mut total").replace("name: str?", "name: str")

FEATURES = """module Shop

type Item
    name: str
    price: dec

let TAX = 0.2

fn total(items: list<Item>) -> dec
    let mut sum_so_far = 0.0
    for item in items
        sum_so_far += item.price
    let first = items[0]
    return sum_so_far * (1.0 + TAX)

test "total adds"
    expect total([]) == 0.0
"""

HABITS = """module Habits

fn f(a: bool, b: bool) -> int
    var x = 1;
    let mut y = 2
    if a && b || !a
        x = 2
    else if a
        let s: str? = null
    return x + y
"""


def recording_client() -> LanguageClient:
    """The test client, also keeping every publishDiagnostics in order (the default keeps the latest per file)."""
    from pytest_lsp.client import default_converter

    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    client.arrived = asyncio.Event()  # set after each publish is recorded (a notification's waiter may run first)

    def publish(client_: LanguageClient, params: types.PublishDiagnosticsParams):
        client_.diagnostics[params.uri] = params.diagnostics
        client_.published.append(params)
        client_.arrived.set()

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


def initialize_params(pull: bool = False, options=FAST) -> types.InitializeParams:
    text_document = types.TextDocumentClientCapabilities(
        diagnostic=types.DiagnosticClientCapabilities() if pull else None,
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
    )
    workspace = types.WorkspaceClientCapabilities(diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)) if pull else None
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(text_document=text_document, workspace=workspace), initialization_options=options,
    )


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client))
async def push(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client))
async def pull(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(pull=True, options={**FAST, "idleRelease": 1.0}))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client))
async def csharp_first(lsp_client: LanguageClient):
    """The C# layers before Kite's: a fast C# check lands before the Kite layer's quiet period is over."""
    await lsp_client.initialize_session(initialize_params(options={**FAST, "kiteDelay": KITE_AFTER_CSHARP}))
    yield
    await lsp_client.shutdown_session()


KITE_AFTER_CSHARP = 3.0


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client))
async def debounced(lsp_client: LanguageClient):
    """The C# layers wait a quiet second, as an editor's server does (0.25 s by default): a burst of edits is one check.
    With no wait, a check can finish between two edits of the burst and rightly show the version it checked."""
    await lsp_client.initialize_session(initialize_params(options={**FAST, "csharpDelay": 1.0}))
    yield
    await lsp_client.shutdown_session()


NO_DOTNET = {**os.environ, "PATH": str(Path(sys.executable).parent)}


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=recording_client, server_env=NO_DOTNET))
async def without_dotnet(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lsp")


def open_file(client: LanguageClient, path: Path, text: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri), [types.TextDocumentContentChangeWholeDocument(text)]))


async def published(client: LanguageClient, uri: str, wanted) -> list[types.Diagnostic]:
    """The first diagnostics published for `uri` that `wanted` accepts."""
    async def wait():
        while not (uri in client.diagnostics and wanted(client.diagnostics[uri])):
            client.arrived.clear()
            await client.arrived.wait()
        return client.diagnostics[uri]
    return await asyncio.wait_for(wait(), WAIT_SECONDS)


def codes(found) -> set[str]:
    return {d.code for d in found}


def span(d: types.Diagnostic) -> tuple:
    return (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)


# ---- diagnostics, pushed


@pytest.mark.asyncio(loop_scope="module")
async def test_push_shows_both_layers_with_ranges_sources_and_links_then_clears_them(push: LanguageClient, folder):
    status = await push.workspace_execute_command_async(types.ExecuteCommandParams("kite.status"))
    assert status["csharp"] == "stopped"  # lazy: nothing started .NET before a file needed it
    uri = open_file(push, folder / "fixing.kite", BROKEN)
    found = await published(push, uri, lambda found: {"KT001", "CS8602"} <= codes(found))
    by_code = {d.code: d for d in found}
    assert codes(found) == {"KT001", "CS8602"}
    kt001, cs8602 = by_code["KT001"], by_code["CS8602"]
    assert (kt001.source, span(kt001), kt001.severity) == ("kite", (4, 4, 4, 9), types.DiagnosticSeverity.Error)
    assert kt001.code_description.href.endswith("docs/rules.md#kt001")
    # The C# layers' ranges are Kite's: CS8602 covers the possibly-none `name` (0-based line 8, characters 11-14).
    assert (cs8602.source, span(cs8602), cs8602.severity) == ("csharp", (8, 11, 8, 15), types.DiagnosticSeverity.Warning)
    assert (await push.workspace_execute_command_async(types.ExecuteCommandParams("kite.status")))["csharp"] == "running"
    change(push, uri, 2, FIXED)
    assert not await published(push, uri, lambda found: not found and push.published[-1].version == 2)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_buffer_that_is_not_unicode_text_is_one_diagnostic_and_the_server_goes_on(push: LanguageClient, folder):
    # JSON-RPC can carry a lone surrogate ("\ud800") that no file can: it once killed the compile process.
    path = folder / "lone.kite"
    path.write_text("module Lone\n")
    uri = path.as_uri()
    text = 'module Lone\n\nfn f() -> str\n    return "a\ud800"\n'
    push.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, text)))
    found = await published(push, uri, bool)
    assert [(d.code, d.range.start.line, d.range.start.character, d.message) for d in found] == [
        ("KT000", 3, 13, "not Unicode text (a lone surrogate U+D800 at line 4, column 14)")]
    change(push, uri, 2, text.replace("\ud800", "b"))
    assert not await published(push, uri, lambda found: not found and push.published[-1].version == 2)
    assert (await push.workspace_execute_command_async(types.ExecuteCommandParams("kite.status")))["csharp"] != "absent"


@pytest.mark.asyncio(loop_scope="module")
async def test_every_request_on_a_buffer_that_is_not_unicode_text_answers_empty(push: LanguageClient, folder):
    # Diagnostics said it once; a hover, a jump or a rename on the same buffer once answered with an error.
    path = folder / "lone_requests.kite"
    text = 'module Lone\n\nfn f(name: str) -> str\n    let greeting = "a\ud800"\n    return f(greeting)\n'
    path.write_text("module Lone\n")
    uri = path.as_uri()
    push.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, text)))
    assert [d.code for d in await published(push, uri, bool)] == ["KT000"]
    document = types.TextDocumentIdentifier(uri)
    where = types.Position(4, 12)  # on `f` in `return f(greeting)`
    whole = types.Range(types.Position(0, 0), types.Position(5, 0))
    answers = {
        "hover": await push.text_document_hover_async(types.HoverParams(document, where)),
        "definition": await push.text_document_definition_async(types.DefinitionParams(document, where)),
        "references": await push.text_document_references_async(types.ReferenceParams(context=types.ReferenceContext(True), text_document=document, position=where)),
        "highlight": await push.text_document_document_highlight_async(types.DocumentHighlightParams(document, where)),
        "signature": await push.text_document_signature_help_async(types.SignatureHelpParams(document, types.Position(4, 13))),
        "completion": await push.text_document_completion_async(types.CompletionParams(document, where)),
        "symbols": await push.text_document_document_symbol_async(types.DocumentSymbolParams(document)),
        "folding": await push.text_document_folding_range_async(types.FoldingRangeParams(document)),
        "inlay": await push.text_document_inlay_hint_async(types.InlayHintParams(text_document=document, range=whole)),
        "tokens": await push.text_document_semantic_tokens_full_async(types.SemanticTokensParams(document)),
        "actions": await push.text_document_code_action_async(types.CodeActionParams(text_document=document, range=whole, context=types.CodeActionContext([]))),
        "formatting": await push.text_document_formatting_async(types.DocumentFormattingParams(text_document=document, options=types.FormattingOptions(4, True))),
        "prepare rename": await push.text_document_prepare_rename_async(types.PrepareRenameParams(document, where)),
        "calls": await push.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(document, where)),
    }
    empty = {name: answer for name, answer in answers.items()
             if answer is None or answer in ([], ()) or getattr(answer, "data", None) in ([], ())}
    assert empty == answers
    change(push, uri, 2, text.replace("\ud800", "b"))  # valid again: the same requests answer
    assert not await published(push, uri, lambda found: not found and push.published[-1].version == 2)
    assert await push.text_document_definition_async(types.DefinitionParams(document, where)) is not None


@pytest.mark.asyncio(loop_scope="module")
async def test_a_kite_check_that_comes_after_the_csharp_result_of_the_same_text_keeps_it(csharp_first: LanguageClient, folder):
    uri = open_file(csharp_first, folder / "late.kite", "module Late\n\nfn f() -> int\n    return missing\n")
    await published(csharp_first, uri, lambda found: "CS0103" in codes(found))
    await asyncio.sleep(KITE_AFTER_CSHARP + 1)  # the Kite layer's check of the same text has come and gone
    assert "CS0103" in codes(csharp_first.diagnostics[uri])


@pytest.mark.asyncio(loop_scope="module")
async def test_ten_quick_edits_publish_only_the_last_versions_csharp_diagnostics(debounced: LanguageClient, folder):
    program = "module Edits\n\nfn f() -> int\n    return missing_{}\n"
    uri = open_file(debounced, folder / "edits.kite", program.format(1))
    await published(debounced, uri, lambda found: "CS0103" in codes(found))
    start = len(debounced.published)
    for version in range(2, 12):
        change(debounced, uri, version, program.format(version))
    await published(debounced, uri, lambda found: any("missing_11" in d.message for d in found))
    with_csharp = [p for p in debounced.published[start:] if p.uri == uri and any(d.source == "csharp" for d in p.diagnostics)]
    assert with_csharp and all(p.version == 11 for p in with_csharp)
    assert all("missing_11" in d.message for p in with_csharp for d in p.diagnostics)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_test_file_is_checked_with_the_program_beside_it(push: LanguageClient, folder):
    (folder / "words.kite").write_text("module Words\n\nfn count(s: str) -> int\n    return len(split(s))\n")
    uri = open_file(push, folder / "words.test.kite", 'module Words\n\ntest "count"\n    expect count("a b") == 2\n    expect counts("a") == 1\n')
    found = await published(push, uri, lambda found: "CS0103" in codes(found))
    assert [(d.code, d.range.start.line) for d in found] == [("CS0103", 4)]  # count() is the program's: no error there


# ---- diagnostics, pulled


@pytest.mark.asyncio(loop_scope="module")
async def test_pull_client_gets_kite_at_once_and_csharp_after_a_refresh(pull: LanguageClient, folder):
    uri = open_file(pull, folder / "pulled.kite", BROKEN)
    report = await pull.text_document_diagnostic_async(types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
    assert "KT001" in codes(report.items) and not pull.diagnostics  # nothing pushed to a client that pulls
    async def refreshed(before=0):
        while pull.diagnostic_refresh_count == before:
            await asyncio.sleep(0.05)  # a request, not a notification: nothing to wait on but the count
    await asyncio.wait_for(refreshed(), WAIT_SECONDS)
    report = await pull.text_document_diagnostic_async(types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
    assert codes(report.items) == {"KT001", "CS8602"}
    # Idle for idleRelease (1 s here): .NET is let go, and comes back for the next change.
    while not any(m.message.startswith(RELEASED) for m in pull.log_messages):
        await asyncio.wait_for(pull.wait_for_notification(types.WINDOW_LOG_MESSAGE), WAIT_SECONDS)
    assert (await pull.workspace_execute_command_async(types.ExecuteCommandParams("kite.status")))["csharp"] == "stopped"
    refreshes = pull.diagnostic_refresh_count
    change(pull, uri, 2, BROKEN.replace("let total", "let mut total"))
    await asyncio.wait_for(refreshed(refreshes), WAIT_SECONDS)
    report = await pull.text_document_diagnostic_async(types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
    assert codes(report.items) == {"CS8602"}
    assert (await pull.workspace_execute_command_async(types.ExecuteCommandParams("kite.status")))["csharp"] == "running"


# ---- names


def at(uri: str, line: int, character: int) -> dict:
    return {"text_document": types.TextDocumentIdentifier(uri), "position": types.Position(line, character)}


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_kite_types_signatures_and_the_standard_library(pull: LanguageClient, folder):
    uri = open_file(pull, folder / "shop.kite", FEATURES)
    async def hover(line, character):
        found = await pull.text_document_hover_async(types.HoverParams(**at(uri, line, character)))
        return found.contents.value if found else None
    assert "sum_so_far: dec" in await hover(11, 10)
    assert "items: list<Item>" in await hover(12, 16)
    assert "first: Item" in await hover(12, 9)
    assert "TAX: dec" in await hover(13, 33)
    assert "fn total(items: list<Item>) -> dec" in await hover(16, 12)
    assert "type Item" in await hover(8, 25) and "price: dec" in await hover(8, 25)
    assert await hover(1, 0) is None
    (folder / "std.kite").write_text("module Std\n\nfn f(s: str) -> str\n    return upper(s)\n")
    std_uri = open_file(pull, folder / "std.kite", "module Std\n\nfn f(s: str) -> str\n    return upper(s)\n")
    found = await pull.text_document_hover_async(types.HoverParams(**at(std_uri, 3, 13)))
    assert "upper(s: str) -> str" in found.contents.value and "upper case" in found.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_goes_to_the_declared_name(pull: LanguageClient, folder):
    uri = open_file(pull, folder / "shop_definition.kite", FEATURES)
    async def definition(line, character):
        found = await pull.text_document_definition_async(types.DefinitionParams(**at(uri, line, character)))
        return (found.range.start.line, found.range.start.character, found.range.end.character)
    assert await definition(11, 10) == (9, 12, 22)  # sum_so_far += ...  ->  let mut sum_so_far
    assert await definition(11, 23) == (10, 8, 12)  # item.price  ->  for item
    assert await definition(16, 12) == (8, 3, 8)  # total(...) in the test  ->  fn total
    assert await definition(13, 33) == (6, 4, 7)  # TAX
    assert await definition(8, 25) == (2, 5, 9)  # Item in a parameter type


@pytest.mark.asyncio(loop_scope="module")
async def test_document_symbols_list_the_items(pull: LanguageClient, folder):
    uri = open_file(pull, folder / "shop_symbols.kite", FEATURES)
    found = await pull.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))
    assert [(s.name, s.kind) for s in found] == [
        ("Item", types.SymbolKind.Struct), ("TAX", types.SymbolKind.Constant), ("total", types.SymbolKind.Function),
        ('test "total adds"', types.SymbolKind.Method)]
    assert [c.name for c in found[0].children] == ["name", "price"]
    assert (found[2].range.start.line, found[2].range.end.line) == (8, 13)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_names_in_scope_the_standard_library_and_record_fields(pull: LanguageClient, folder):
    text = FEATURES.replace("    return sum_so_far", "    let y = first.\n    return sum_so_far")
    uri = open_file(pull, folder / "shop_completion.kite", text)
    async def labels(line, character):
        found = await pull.text_document_completion_async(types.CompletionParams(**at(uri, line, character)))
        return {item.label for item in found.items}
    assert await labels(13, 18) == {"name", "price"}
    everywhere = await labels(14, 4)
    assert {"sum_so_far", "first", "items", "TAX", "total", "Item", "upper", "len", "let", "while"} <= everywhere
    assert "item" in everywhere or "y" in everywhere  # declared earlier in the function
    assert "sum_so_far" not in await labels(3, 4)  # another item's local


@pytest.mark.asyncio(loop_scope="module")
async def test_each_quick_fix_writes_the_kite_for_a_csharp_habit(pull: LanguageClient, folder):
    """The quick fixes are the diagnostics' own fixes (kite.diagnostics.Fix): the same as `kite check --fix` applies."""
    uri = open_file(pull, folder / "habits.kite", HABITS)
    whole = types.Range(types.Position(0, 0), types.Position(20, 0))
    actions = await pull.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), whole, types.CodeActionContext(diagnostics=[])))
    lines = HABITS.split("\n")
    fixed = {}
    for action in actions:
        [edit] = action.edit.changes[uri]
        assert action.kind == types.CodeActionKind.QuickFix and action.diagnostics and action.is_preferred
        line = lines[edit.range.start.line]
        fixed[action.title] = line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    assert fixed == {
        "Replace 'var' with 'let mut'": "    let mut x = 1;",
        "Remove ';'": "    var x = 1",
        "Declare it with let": "    let y = 2",
        "Replace '&&' with 'and'": "    if a and b || !a",
        "Replace '||' with 'or'": "    if a && b or !a",
        "Replace '!' with 'not'": "    if a && b || not a",
        "Replace 'else if' with 'elif'": "    elif a",
        "Replace 'null' with 'none'": "        let s: str? = none",
    }


@pytest.mark.asyncio(loop_scope="module")
async def test_a_rename_is_a_quick_fix_too_but_not_the_preferred_one(pull: LanguageClient, folder):
    text = "module Names\n\nfn AddItem(x: int) -> int\n    return x\n\nfn main()\n    print(AddItem(1))\n"
    uri = open_file(pull, folder / "names.kite", text)
    actions = await pull.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(2, 0), types.Position(2, 5)), types.CodeActionContext(diagnostics=[])))
    [rename] = actions
    assert rename.title == "Rename 'AddItem' to 'add_item'" and not rename.is_preferred
    assert [(e.range.start.line, e.range.start.character, e.new_text) for e in rename.edit.changes[uri]] == [(2, 3, "add_item"), (6, 10, "add_item")]


MESSY = "module Messy\r\nfn f( a:int )->int\r\n    return a+1\r\n\r\nfn g( )\r\n    pass\r\n"


def applied(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    offsets = [sum(len(line) + 1 for line in lines[:row]) for row in range(len(lines) + 1)]
    at = lambda p: offsets[p.line] + p.character  # noqa: E731  (ASCII: UTF-16 units are characters)
    for edit in sorted(edits, key=lambda e: at(e.range.start), reverse=True):
        text = text[: at(edit.range.start)] + edit.new_text + text[at(edit.range.end):]
    return text


@pytest.mark.asyncio(loop_scope="module")
async def test_formatting_gives_kite_fmt_s_layout_in_the_document_s_line_ends(pull: LanguageClient, folder):
    uri = open_file(pull, folder / "messy.kite", MESSY)
    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    edits = await pull.text_document_formatting_async(types.DocumentFormattingParams(types.TextDocumentIdentifier(uri), options))
    assert applied(MESSY, edits) == "module Messy\r\n\r\nfn f(a: int) -> int\r\n    return a + 1\r\n\r\nfn g()\r\n    pass\r\n"
    only_g = await pull.text_document_range_formatting_async(types.DocumentRangeFormattingParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(4, 0), types.Position(4, 8)), options))
    assert applied(MESSY, only_g) == MESSY.replace("fn g( )", "fn g()")
    broken = open_file(pull, folder / "broken.kite", "module Broken\n\nfn f()\n    return +\n")
    assert await pull.text_document_formatting_async(types.DocumentFormattingParams(types.TextDocumentIdentifier(broken), options)) is None


# ---- without dotnet


@pytest.mark.asyncio(loop_scope="module")
async def test_without_dotnet_the_kite_layer_is_served_and_the_absence_said_once(without_dotnet: LanguageClient, folder):
    uri = open_file(without_dotnet, folder / "alone.kite", BROKEN)
    found = await published(without_dotnet, uri, lambda found: "KT001" in codes(found))
    assert {d.source for d in found} == {"kite"}
    if not without_dotnet.messages:
        await asyncio.wait_for(without_dotnet.wait_for_notification(types.WINDOW_SHOW_MESSAGE), WAIT_SECONDS)
    for version in (2, 3):  # later changes: still served, never told again
        change(without_dotnet, uri, version, BROKEN + "\n" * version)
        await published(without_dotnet, uri, lambda found, version=version: without_dotnet.published[-1].version == version)
    status = await without_dotnet.workspace_execute_command_async(types.ExecuteCommandParams("kite.status"))
    assert status["csharp"] == "absent" and "dotnet" in status["why"]
    [message] = without_dotnet.messages
    assert message.type == types.MessageType.Warning and "dotnet" in message.message
