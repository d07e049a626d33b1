"""Kite for Pygments (registered as the `kite` lexer): what the review page and the docs highlight Kite with.

The keywords are the grammar's own words (`kite_keywords()`), never a second list. Answers are hostile and often
half C#, so what Kite would reject (`{`, `;`, `&&`, an unterminated string) still gets a token class: a highlighter
shows code, it does not judge it (KT000 and KT004 do)."""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, default, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from kite.syntax.parser import kite_keywords

CONSTANTS = ("true", "false", "none")
COLLECTION_TYPES = ("list", "set", "map")
DECLARING = ("fn", "type", "enum", "module", "use", "test")


def _keywords(exclude) -> tuple[str, ...]:
    return tuple(sorted(kite_keywords() - set(exclude)))


class KiteLexer(RegexLexer):
    name = "Kite"
    aliases = ["kite"]
    filenames = ["*.kite"]
    mimetypes = ["text/x-kite"]

    tokens = {
        "root": [
            (r"[ \t]+", Whitespace),
            (r"\r?\n|\r", Whitespace),
            (r"#[^\r\n]*", Comment.Single),
            (r'f"', String.Affix, "fstring"),  # before names: `f` alone is a name
            (r"(fn)([ \t]+)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"(type|enum)([ \t]+)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"(module|use)([ \t]+)", bygroups(Keyword.Namespace, Whitespace), "namespace"),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(COLLECTION_TYPES, suffix=r"\b"), Keyword.Type),
            (words(("fn", "type", "enum", "test"), suffix=r"\b"), Keyword.Declaration),
            (words(("module", "use"), suffix=r"\b"), Keyword.Namespace),
            (words(_keywords(CONSTANTS + COLLECTION_TYPES + DECLARING), suffix=r"\b"), Keyword),
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
