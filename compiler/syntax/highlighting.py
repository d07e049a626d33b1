"""Kite for Pygments (registered as the `kite` lexer): what the review page and the docs highlight Kite with.

The keywords are the grammar's own words (`kite_keywords()`), never a second list. Answers are hostile and often
half C#, so what Kite would reject (`{`, `;`, `&&`, an unterminated string) still gets a token class: a highlighter
shows code, it does not judge it (KT000 and KT004 do)."""

from __future__ import annotations

from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, default, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from kite.syntax.parser import kite_keywords

# How the grammar's keywords are shown: these groups are styled apart, every other keyword is plain Keyword.
CONSTANTS = ("true", "false", "none")
COLLECTION_TYPES = ("list", "set", "map")
DECLARATIONS = ("fn", "type", "enum", "test")
NAMESPACES = ("module", "use")


def _keywords(among=None) -> tuple[str, ...]:
    """The grammar's keywords in `among` (all but the styled groups when None): never a word the grammar lacks."""
    grouped = set(CONSTANTS + COLLECTION_TYPES + DECLARATIONS + NAMESPACES)
    chosen = kite_keywords() & set(among) if among is not None else kite_keywords() - grouped
    return tuple(sorted(chosen))


class KiteLexer(RegexLexer):
    name = "Kite"
    aliases: ClassVar[list[str]] = ["kite"]
    filenames: ClassVar[list[str]] = ["*.kite"]
    mimetypes: ClassVar[list[str]] = ["text/x-kite"]

    tokens: ClassVar[dict[str, list]] = {
        "root": [
            (r"[ \t]+", Whitespace),
            (r"\r?\n|\r", Whitespace),
            (r"#[^\r\n]*", Comment.Single),
            (r'f"', String.Affix, "fstring"),  # before names: `f` alone is a name
            (r"(fn)([ \t]+)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"(type|enum)([ \t]+)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"(module|use)([ \t]+)", bygroups(Keyword.Namespace, Whitespace), "namespace"),
            (words(_keywords(CONSTANTS), suffix=r"\b"), Keyword.Constant),
            (words(_keywords(COLLECTION_TYPES), suffix=r"\b"), Keyword.Type),
            (words(_keywords(DECLARATIONS), suffix=r"\b"), Keyword.Declaration),
            (words(_keywords(NAMESPACES), suffix=r"\b"), Keyword.Namespace),
            (words(_keywords(), suffix=r"\b"), Keyword),
            (r"[A-Z][A-Za-z0-9_]*", Name.Class),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"[0-9](_?[0-9])*\.[0-9](_?[0-9])*", Number.Float),
            (r"[0-9](_?[0-9])*", Number.Integer),
            (r'"', String.Double, "string"),
            (r"'(\\.|[^'\\\r\n])'", String.Char),
            (r"'", String.Char),  # a C# habit or a stray quote: shown, not judged
            (r"->|=>|==|!=|<=|>=|\+=|-=|\*=|/=|%=|&&|\|\||\+\+|--|[-+*/%<>=!?&|^~]", Operator),
            (r"[()\[\]{},:.;@$\\`]", Punctuation),
            (r"[^\x20-\x7e\t\r\n]+", Text),  # other scripts, emoji, control characters: rejected by Kite, still shown
        ],
        "namespace": [
            (r"[A-Za-z_][A-Za-z0-9_]*", Name.Namespace),
            (r"\.", Punctuation),
            default("#pop"),
        ],
        "string": [
            (r'[^"\\\r\n]+', String.Double),
            (r"\\.", String.Escape),
            (r'"', String.Double, "#pop"),
            (r"\\?(?=\r?\n|\r)|\\?\Z", String.Double, "#pop"),  # unterminated: the line ends it
        ],
        "fstring": [
            (r'[^"\\{\r\n]+', String.Double),
            (r"\\.", String.Escape),
            (r"\{", String.Interpol, "hole"),
            (r'"', String.Double, "#pop"),
            (r"\\?(?=\r?\n|\r)|\\?\Z", String.Double, "#pop"),
        ],
        "hole": [
            (r"\}", String.Interpol, "#pop"),
            (r"(?=\r?\n|\r)|\Z", Text, "#pop"),
            include("root"),
        ],
    }
