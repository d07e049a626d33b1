"""`kite lsp` over a workspace folder (a copy of tests/project: a program, its test file, another module), through a
bare LSP client: definition and references across files, rename and its refusals, workspace symbols, the call
hierarchy, highlights, the index kept current on edits, malformed params answered with -32602. Positions below are
the editor's: 0-based lines and UTF-16 columns; expectations are made by hand from the fixture's text."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER = [sys.executable, "-m", "kite.cli.main", "lsp"]
PROJECT = Path(__file__).parent / "project"
ROOT = Path(tempfile.mkdtemp(prefix="kite-lsp-workspace-")) / "project"
CART, CART_TEST, WORDS = ROOT / "cart.kite", ROOT / "cart.test.kite", ROOT / "words.kite"


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    shutil.copytree(PROJECT, ROOT, dirs_exist_ok=True)
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri(),
        workspace_folders=[types.WorkspaceFolder(ROOT.as_uri(), "project")],
        initialization_options={"kiteDelay": 0.02, "csharpDelay": 600, "idleRelease": 600}))
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(ROOT.parent, ignore_errors=True)


def at(path: Path, line: int, character: int) -> dict:
    return {"text_document": types.TextDocumentIdentifier(path.as_uri()), "position": types.Position(line, character)}


def spot(location) -> tuple:
    return (Path(location.uri.removeprefix("file://")).name, location.range.start.line, location.range.start.character,
            location.range.end.character)


def edits(edit: types.WorkspaceEdit) -> dict:
    return {Path(uri.removeprefix("file://")).name: sorted((e.range.start.line, e.range.start.character, e.range.end.character, e.new_text)
                                                            for e in changes) for uri, changes in edit.changes.items()}


pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_definition_goes_from_the_test_file_to_the_program(client: LanguageClient):
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART_TEST, 4, 12)))
    assert spot(found) == ("cart.kite", 22, 3, 8)  # fn total
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART_TEST, 3, 17)))
    assert spot(found) == ("cart.kite", 6, 5, 10)  # Order(...) -> type Order
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART_TEST, 3, 47)))
    assert spot(found) == ("cart.kite", 11, 4, 9)  # Size.Small -> the member
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART, 19, 29)))
    assert spot(found) == ("cart.kite", 4, 4, 9)  # item.price -> the field
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART, 23, 25)))
    assert spot(found) == ("cart.kite", 22, 9, 14)  # order.items: order -> the parameter
    found = await client.text_document_definition_async(types.DefinitionParams(**at(CART, 23, 30)))
    assert spot(found) == ("cart.kite", 7, 4, 9)  # order.items: items -> the field of Order


async def test_references_cover_every_file_of_the_module_and_honour_include_declaration(client: LanguageClient):
    async def references(path, line, character, declaration):
        found = await client.text_document_references_async(types.ReferenceParams(
            **at(path, line, character), context=types.ReferenceContext(include_declaration=declaration)))
        return [spot(location) for location in found]
    assert await references(CART, 22, 4, True) == [("cart.kite", 22, 3, 8), ("cart.kite", 30, 24, 29), ("cart.test.kite", 4, 11, 16)]
    assert await references(CART_TEST, 4, 11, False) == [("cart.kite", 30, 24, 29), ("cart.test.kite", 4, 11, 16)]
    # Words.total is another module's: never among Cart.total's
    assert await references(WORDS, 2, 4, True) == [("words.kite", 2, 3, 8), ("words.kite", 7, 11, 16)]
    assert await references(CART, 19, 12, True) == [("cart.kite", 17, 12, 22), ("cart.kite", 19, 8, 18), ("cart.kite", 20, 11, 21)]


async def test_rename_is_one_workspace_edit_over_every_file(client: LanguageClient):
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(**at(CART_TEST, 4, 13)))
    assert (prepared.range.start.line, prepared.range.start.character, prepared.range.end.character, prepared.placeholder) == (4, 11, 16, "total")
    edit = await client.text_document_rename_async(types.RenameParams(**at(CART_TEST, 4, 13), new_name="grand_total"))
    assert edits(edit) == {
        "cart.kite": [(22, 3, 8, "grand_total"), (30, 24, 29, "grand_total")],
        "cart.test.kite": [(4, 11, 16, "grand_total")],
    }
    edit = await client.text_document_rename_async(types.RenameParams(**at(CART, 11, 6), new_name="Tiny"))
    assert edits(edit) == {"cart.kite": [(11, 4, 9, "Tiny")], "cart.test.kite": [(3, 47, 52, "Tiny")]}
    edit = await client.text_document_rename_async(types.RenameParams(**at(CART, 4, 6), new_name="cost"))
    assert edits(edit) == {"cart.kite": [(4, 4, 9, "cost"), (19, 27, 32, "cost")]}
    edit = await client.text_document_rename_async(types.RenameParams(**at(CART, 17, 14), new_name="acc"))
    assert edits(edit) == {"cart.kite": [(17, 12, 22, "acc"), (19, 8, 18, "acc"), (20, 11, 21, "acc")]}
    # total's own local `base` sees no use of total (its declaration is none): `fn base(...)` hides nothing
    edit = await client.text_document_rename_async(types.RenameParams(**at(CART, 22, 4), new_name="base"))
    assert edits(edit) == {"cart.kite": [(22, 3, 8, "base"), (30, 24, 29, "base")], "cart.test.kite": [(4, 11, 16, "base")]}


@pytest.mark.parametrize(("path", "line", "character", "new_name", "message"), [
    (CART, 28, 13, "size", "'len' is the standard library's: it cannot be renamed"),
    (CART, 28, 5, "size", "'let' is a keyword of Kite: it cannot be renamed"),
    (CART, 22, 4, "GrandTotal", "'GrandTotal' is not a function name: Kite writes them in snake_case"),
    (CART, 22, 4, "label", "'label' is already declared: fn Cart.label on line 27 of "),
    (CART, 22, 4, "len", "'len' is the standard library's: a program cannot declare it"),
    (CART, 22, 4, "while", "'while' is a keyword of Kite"),
    (CART, 2, 6, "item", "'item' is not a type name: Kite writes them in PascalCase"),
    (CART, 2, 6, "Order", "'Order' is already declared: type Cart.Order on line 7 of "),
    (CART, 4, 6, "name", "'name' is already declared: field Cart.Item.name on line 4 of "),
    (CART, 27, 9, "a", "'a' is already declared on line 29"),
    (CART, 17, 14, "SumSoFar", "'SumSoFar' is not a local name: Kite writes them in snake_case"),  # a let mut
    (CART, 18, 8, "Item", "'Item' is not a loop variable name: Kite writes them in snake_case"),
    (CART, 22, 10, "Order", "'Order' is not a parameter name: Kite writes them in snake_case"),
    (CART, 27, 9, "total", "'total' is used in this function already: the new name would hide it"),
    (CART_TEST, 2, 8, "x", "a test's title is text, not a name: edit it in place"),
    (CART, 16, 5, "base", "'base' is a local on line 24 of "),  # total's local, where total calls subtotal
])
async def test_a_rename_that_cannot_be_done_is_refused_with_why(client: LanguageClient, path, line, character, new_name, message):
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_rename_async(types.RenameParams(**at(path, line, character), new_name=new_name))
    assert str(refused.value.message).startswith(message)


async def test_prepare_rename_refuses_the_standard_library(client: LanguageClient):
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_prepare_rename_async(types.PrepareRenameParams(**at(CART, 30, 17)))
    assert refused.value.message == "'upper' is the standard library's: it cannot be renamed"


async def test_workspace_symbols_by_substring_ignoring_case(client: LanguageClient):
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="TOTAL"))
    assert sorted((s.name, s.kind, Path(s.location.uri).name) for s in found) == sorted([
        ("Cart.subtotal", types.SymbolKind.Function, "cart.kite"), ("Cart.total", types.SymbolKind.Function, "cart.kite"),
        ("Cart.test:total adds tax", types.SymbolKind.Method, "cart.test.kite"), ("Words.total", types.SymbolKind.Function, "words.kite"),
    ])


async def test_call_hierarchy_incoming_and_outgoing_across_files(client: LanguageClient):
    [item] = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(**at(CART, 22, 4)))
    assert (item.name, item.selection_range.start.line, item.selection_range.start.character) == ("total", 22, 3)
    incoming = await client.call_hierarchy_incoming_calls_async(types.CallHierarchyIncomingCallsParams(item))
    assert sorted((call.from_.name, Path(call.from_.uri).name, [r.start.line for r in call.from_ranges]) for call in incoming) == [
        ("label", "cart.kite", [30]), ("total adds tax", "cart.test.kite", [4])]
    outgoing = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item))
    assert [(call.to.name, [r.start.line for r in call.from_ranges]) for call in outgoing] == [("subtotal", [23])]


async def test_document_highlight_marks_the_declaration_as_written(client: LanguageClient):
    found = await client.text_document_document_highlight_async(types.DocumentHighlightParams(**at(CART, 26, 10)))
    assert [(h.range.start.line, h.range.start.character, h.kind) for h in found] == [
        (26, 9, types.DocumentHighlightKind.Write), (29, 7, types.DocumentHighlightKind.Read), (30, 30, types.DocumentHighlightKind.Read)]


async def test_the_index_follows_the_editors_buffer(client: LanguageClient):
    text = CART_TEST.read_text() + '\ntest "subtotal of nothing"\n    expect subtotal([]) == 0.0\n'
    uri = CART_TEST.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, CART_TEST.read_text())))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(2, uri), [types.TextDocumentContentChangeWholeDocument(text)]))
    found = await client.text_document_references_async(types.ReferenceParams(
        **at(CART, 16, 5), context=types.ReferenceContext(include_declaration=False)))
    assert [spot(location) for location in found] == [("cart.kite", 23, 15, 23), ("cart.test.kite", 10, 11, 19)]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    found = await client.text_document_references_async(types.ReferenceParams(
        **at(CART, 16, 5), context=types.ReferenceContext(include_declaration=False)))
    assert [spot(location) for location in found] == [("cart.kite", 23, 15, 23)]  # closed unsaved: the disk's again


def framed(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(stream) -> dict:
    length = 0
    while (header := stream.readline().strip()):
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
    return json.loads(stream.read(length))


async def test_malformed_params_get_invalid_params_never_silence():
    """A bare client, as the typed one would not send them: hover without a position, and others, each answered.
    Async only as the module's other tests are (one event loop for the module); it blocks, with nothing else to run."""
    document = {"textDocument": {"uri": CART.as_uri()}}
    requests = [(method, document) for method in ("textDocument/hover", "textDocument/definition", "textDocument/references",
                                                  "textDocument/rename", "textDocument/signatureHelp")]
    # Of the wrong JSON type: never read as the name "5", the query "3" or line 1
    requests += [("textDocument/rename", {**document, "position": {"line": 22, "character": 4}, "newName": 5}),
                 ("workspace/symbol", {"query": 3}),
                 ("textDocument/prepareRename", {**document, "position": {"line": 1.5, "character": 0}}),
                 ("textDocument/hover", {**document, "position": {"line": True, "character": 0}})]
    server = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        server.stdin.write(framed({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}))
        for number, (method, params) in enumerate(requests, 1):
            server.stdin.write(framed({"jsonrpc": "2.0", "id": number, "method": method, "params": params}))
        server.stdin.flush()
        answers = {}
        while len(answers) < len(requests) + 1:
            message = read_message(server.stdout)
            if "id" in message:
                answers[message["id"]] = message
        assert [answers[number].get("error", {}).get("code") for number in range(1, len(requests) + 1)] == [-32602] * len(requests)
    finally:
        server.kill()
        server.wait()


TYPES = """module Types

fn count(s: str, words: list<str>) -> int
    let a = len(words)
    let n = parse_int(s)
    let loud = upper(s)
    let xs = [1, 2]
    let twice = fn(x: int) => x * 2
    let mixed = [1, 2.5]
    let first = words[0]
    return a + twice(3)

type Tag
    name: str

fn scaled(tag: Tag, x: int) -> int
    let name = tag.name
    return x * (len(name) + 1)
"""


def open_types(client: LanguageClient) -> Path:
    path = ROOT / "types.kite"
    path.write_text(TYPES)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "kite", 1, TYPES)))
    return path


@pytest.mark.parametrize(("line", "character", "shown"), [
    (3, 13, "len(words): int"),  # on the called name: the call's type
    (3, 17, "words: list<str>"),
    (4, 14, "parse_int(s): int?"),
    (5, 15, "upper(s): str"),
    (6, 13, "[1, 2]: list<int>"),
    (6, 14, "1: int"),
    (7, 17, "fn(x: int) => x * 2: fn(int) -> int"),
    (7, 32, "x * 2: int"),
    (8, 16, "[1, 2.5]: list<dec>"),
    (10, 13, "a + twice(3): int"),
    (10, 16, "twice(3): int"),
    (9, 21, "words[0]: str"),  # on the `[`: the index, not `words` that ends there
    (17, 13, "x * (len(name) + 1): int"),  # with the `)` the parser keeps no node for
    (17, 27, "len(name) + 1: int"),
    (16, 19, "tag.name: str"),
])
async def test_hover_gives_the_type_of_every_expression(client: LanguageClient, line, character, shown):
    path = open_types(client)
    found = await client.text_document_hover_async(types.HoverParams(**at(path, line, character)))
    assert f"```kite\n{shown}\n```" in found.contents.value


async def test_hover_on_a_field_is_never_a_local_of_its_name(client: LanguageClient):
    path = open_types(client)
    found = await client.text_document_hover_async(types.HoverParams(**at(path, 16, 21)))
    assert found.contents.value == "```kite\ntag.name: str\n```"  # not the local `name` declared before it


async def test_hover_in_the_test_file_knows_the_programs_declarations(client: LanguageClient):
    found = await client.text_document_hover_async(types.HoverParams(**at(CART_TEST, 4, 12)))
    assert "```kite\ntotal(order): dec\n```" in found.contents.value
    assert "```kite\nfn total(order: Order) -> dec\n```" in found.contents.value  # what the name is, from cart.kite
    found = await client.text_document_hover_async(types.HoverParams(**at(CART_TEST, 3, 9)))
    assert "```kite\norder: Order\n```" in found.contents.value
    found = await client.text_document_hover_async(types.HoverParams(**at(CART_TEST, 3, 17)))
    assert "```kite\ntype Order\n    items: list<Item>\n    size: Size\n```" in found.contents.value
    uri = CART_TEST.as_uri()
    text = CART_TEST.read_text() + '\ntest "tax"\n    expect TAX * 2.0 > 0.0\n'
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, text)))
    last = len(text.split("\n")) - 2
    found = await client.text_document_hover_async(types.HoverParams(**at(CART_TEST, last, 12)))
    assert "```kite\nTAX: dec\n```" in found.contents.value  # the program's constant, never unknown
    found = await client.text_document_hover_async(types.HoverParams(**at(CART_TEST, last, 16)))
    assert "```kite\nTAX * 2.0: dec\n```" in found.contents.value
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))


async def test_inlay_hints_give_each_let_its_type(client: LanguageClient):
    path = open_types(client)
    found = await client.text_document_inlay_hint_async(types.InlayHintParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Range(types.Position(0, 0), types.Position(20, 0))))
    assert [(h.position.line, h.position.character, h.label) for h in found] == [
        (3, 9, ": int"), (4, 9, ": int?"), (5, 12, ": str"), (6, 10, ": list<int>"), (7, 13, ": fn(int) -> int"),
        (8, 13, ": list<dec>"), (9, 13, ": str"), (16, 12, ": str")]
    assert all(h.kind == types.InlayHintKind.Type for h in found)


NARROWED = """module Narrowed

fn plus_one(s: str) -> int
    let parsed = parse_int(s)
    if parsed != none
        let next = parsed + 1
        return next
    let again = parsed
    return 0
"""


async def test_hover_and_inlay_hints_show_a_narrowed_name_without_its_question_mark(client: LanguageClient):
    path = ROOT / "narrowed.kite"
    path.write_text(NARROWED)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "kite", 1, NARROWED)))
    found = await client.text_document_hover_async(types.HoverParams(**at(path, 5, 19)))
    assert found.contents.value.startswith("```kite\nparsed: int\n```")  # inside `if parsed != none`
    found = await client.text_document_hover_async(types.HoverParams(**at(path, 5, 26)))
    assert "```kite\nparsed + 1: int\n```" in found.contents.value
    found = await client.text_document_hover_async(types.HoverParams(**at(path, 7, 16)))
    assert found.contents.value.startswith("```kite\nparsed: int?\n```")  # after the block
    found = await client.text_document_inlay_hint_async(types.InlayHintParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Range(types.Position(0, 0), types.Position(9, 0))))
    assert [(h.position.line, h.position.character, h.label) for h in found] == [(3, 14, ": int?"), (5, 16, ": int"), (7, 13, ": int?")]


async def test_signature_help_for_the_programs_functions_across_files_and_the_standard_library(client: LanguageClient):
    uri = CART_TEST.as_uri()
    typing = CART_TEST.read_text() + '\ntest "typing"\n    expect total(Order([], '
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "kite", 1, typing)))
    last = len(typing.split("\n")) - 1
    found = await client.text_document_signature_help_async(types.SignatureHelpParams(**at(CART_TEST, last, 17)))
    assert [s.label for s in found.signatures] == ["fn total(order: Order) -> dec"]  # declared in cart.kite
    assert (found.active_signature, found.active_parameter) == (0, 0)
    found = await client.text_document_signature_help_async(types.SignatureHelpParams(**at(CART_TEST, last, 27)))
    assert [s.label for s in found.signatures] == ["Order(items: list<Item>, size: Size)"]  # the innermost call
    assert found.active_parameter == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    path = open_types(client)
    text = TYPES + "\nfn more(s: str) -> str\n    return replace(s, \"a\", "
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(2, path.as_uri()), [types.TextDocumentContentChangeWholeDocument(text)]))
    last = len(text.split("\n")) - 1
    found = await client.text_document_signature_help_async(types.SignatureHelpParams(**at(path, last, 28)))
    assert [s.label for s in found.signatures] == ["replace(s: str, old: str, new: str) -> str"]
    assert found.active_parameter == 2 and "replaced" in found.signatures[0].documentation
    assert [p.label for p in found.signatures[0].parameters] == ["s: str", "old: str", "new: str"]
    found = await client.text_document_signature_help_async(types.SignatureHelpParams(**at(path, last, 19)))
    assert found.active_parameter == 0
    found = await client.text_document_signature_help_async(types.SignatureHelpParams(**at(path, 3, 4)))
    assert found is None  # not inside a call


async def test_folding_ranges_are_the_declarations_and_blocks(client: LanguageClient):
    found = await client.text_document_folding_range_async(types.FoldingRangeParams(types.TextDocumentIdentifier(CART.as_uri())))
    assert [(f.start_line, f.end_line) for f in found] == [
        (2, 4), (6, 8), (10, 12), (16, 20), (18, 19), (22, 24), (26, 31), (29, 30), (33, 34)]


async def test_semantic_tokens_say_what_each_name_is(client: LanguageClient):
    found = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(types.TextDocumentIdentifier(CART.as_uri())))
    legend_types = ["function", "struct", "enum", "enumMember", "property", "variable", "parameter", "method"]
    legend_modifiers = ["declaration", "readonly", "defaultLibrary"]
    tokens, line, start = [], 0, 0
    data = found.data
    for index in range(0, len(data), 5):  # LSP's relative encoding, decoded
        delta_line, delta_start, length, kind, bits = data[index:index + 5]
        line, start = line + delta_line, (start + delta_start if delta_line == 0 else delta_start)
        tokens.append((line, start, length, legend_types[kind], {m for i, m in enumerate(legend_modifiers) if bits >> i & 1}))
    assert [t for t in tokens if t[0] == 16] == [
        (16, 3, 8, "function", {"declaration"}), (16, 12, 5, "parameter", {"declaration", "readonly"}), (16, 24, 4, "struct", set())]
    assert [t for t in tokens if t[0] == 29] == [
        (29, 7, 5, "parameter", {"readonly"}), (29, 13, 4, "property", set()), (29, 21, 4, "enum", set()),
        (29, 26, 5, "enumMember", {"readonly"})]
    assert (28, 12, 3, "function", {"defaultLibrary"}) in tokens  # len
    assert (17, 12, 10, "variable", {"declaration"}) in tokens  # let mut: not readonly
