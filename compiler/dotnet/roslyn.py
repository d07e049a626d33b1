"""Roslyn and the .NET analyzers, driven in-process: C# text in, Kite diagnostics out.

Everything expensive (MetadataReferences, analyzer instances, options) is built once per
service and reused: re-creating references on every call leaks native memory.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kite.atomic import write_atomically
from kite.diagnostics import INTERNAL_ERROR_ID, Diagnostic, Layer, Severity
from kite.dotnet.own_images import own_image
from kite.dotnet.runtime import DotnetRuntime, boot
from kite.errors import ToolchainError

LANGUAGE_VERSION = "CSharp14"
WARNING_LEVEL = 10  # the warning wave of .NET 10, as the SDK sets it for net10.0
# The runtime binder of `dynamic`: without it no dynamic operation compiles (KT007 also names the word).
WITHOUT_REFERENCES = frozenset({"Microsoft.CSharp.dll"})
MAX_BASE_COMPILATIONS = 16
ANALYZER_TABLE = "analyzer-types.json"  # in the restored packages' folder: see _analyzer_types


@dataclass(frozen=True)
class AnalyzerRules:
    """The CA rule table: ids switched on (as warnings) and off, each with its reason."""

    on: dict[str, str]
    off: dict[str, str]

    @classmethod
    def load(cls) -> AnalyzerRules:
        table = tomllib.loads((resources.files("kite.dotnet") / "analyzer_rules.toml").read_text())
        return cls(on=dict(table["on"]), off=dict(table["off"]))

    def any_reported(self, rules: tuple[tuple[str, bool], ...]) -> bool:
        """Whether one of an analyzer's (rule id, reported by default) can be reported under this table."""
        return any(rule_id in self.on or (rule_id not in self.off and by_default) for rule_id, by_default in rules)


@dataclass(frozen=True)
class AnalyzerType:
    """A .NET analyzer the restored packages ship, as ANALYZER_TABLE keeps it."""

    image: str  # its assembly's file name, the same for the IL DLL and its ReadyToRun copy
    name: str  # its full type name
    rules: tuple[tuple[str, bool], ...]  # (rule id, reported unless the rule table says otherwise)
    # A suppressor (it reports nothing, it hides what others report) or one with a rule no severity turns off: always
    # loaded, as without the table.
    always: bool = False


@dataclass(frozen=True)
class Allowlist:
    """What Kite code may bind to (allowlist.toml), each name with its reason: KT007 is everything else."""

    types: dict[str, str]
    members: dict[str, str]
    refused: dict[str, str]
    never: dict[str, str]

    @classmethod
    def load(cls) -> Allowlist:
        table = tomllib.loads((resources.files("kite.dotnet") / "allowlist.toml").read_text())
        return cls(types=dict(table["types"]), members=dict(table["members"]), refused=dict(table["refused"]), never=dict(table["never"]))


@dataclass(frozen=True)
class Emitted:
    """An assembly image (bytes) and, if it failed, why."""

    image: bytes | None
    diagnostics: list[Diagnostic]
    pdb: bytes | None = None  # the portable PDB of a debug build (emit(debug=True))


class RoslynService:
    def __init__(self, rules: AnalyzerRules | None = None, runtime: DotnetRuntime | None = None):
        self.runtime = runtime or boot()
        self.rules = rules or AnalyzerRules.load()

        from Microsoft.CodeAnalysis import NullableContextOptions, OptimizationLevel, OutputKind, ReportDiagnostic
        from Microsoft.CodeAnalysis.CSharp import CSharpCompilationOptions, CSharpParseOptions, LanguageVersion
        from System import String
        from System.Collections.Generic import Dictionary

        self._references = _references(self.runtime)
        types, kite_analyzers = _analyzer_types(self.runtime), _kite_analyzers(self.runtime)
        # Whether each rule is reported unless the table says otherwise; where two analyzers share an id, the later.
        by_default = {rule_id: reported for analyzer in types for rule_id, reported in analyzer.rules}
        by_default |= {rule_id: reported for analyzer in kite_analyzers for rule_id, reported in _rules_of(analyzer)}
        self.analyzer_ids = frozenset(by_default)
        unknown = sorted((set(self.rules.on) | set(self.rules.off)) - self.analyzer_ids)
        if unknown:
            raise ToolchainError(f"analyzer_rules.toml names rules the analyzers do not have: {', '.join(unknown)}")
        self.analyzers = _analyzers(self.runtime, tuple(analyzer for analyzer in types if analyzer.always or self.rules.any_reported(analyzer.rules)))

        severities = Dictionary[String, ReportDiagnostic]()
        for rule_id, reported in sorted(by_default.items()):
            if rule_id in self.rules.on:
                severities[rule_id] = ReportDiagnostic.Warn
            elif rule_id in self.rules.off:
                severities[rule_id] = ReportDiagnostic.Suppress
            elif not reported:
                # Not reported anyway; suppressing it lets Roslyn skip analyzers with nothing to report.
                severities[rule_id] = ReportDiagnostic.Suppress
        self._parse_options = CSharpParseOptions(getattr(LanguageVersion, LANGUAGE_VERSION))
        # Roslyn's switch that skips nullable analysis: it only warns, and it does not change the image (every sample
        # answer and hostile program emits the same bytes either way: tests/test_dotnet.py).
        features = Dictionary[String, String]()
        features["run-nullable-analysis"] = "never"
        self._unanalyzed_parse_options = self._parse_options.WithFeatures(features)
        self._options = (
            CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary)
            .WithNullableContextOptions(NullableContextOptions.Enable)
            .WithWarningLevel(WARNING_LEVEL)
            .WithOptimizationLevel(OptimizationLevel.Release)
            .WithDeterministic(True)
            .WithSpecificDiagnosticOptions(severities)
        )
        self._options_by_build: dict = {}
        self._bases: dict = {}

    def _compilation(self, assembly_name: str, sources: list[tuple[str, str]], references=(), options=None, parse_options=None):
        """Sources added to an empty compilation kept per (name, options, references): a compilation derived by
        AddSyntaxTrees shares its base's bound references, which a fresh CSharpCompilation.Create binds again
        (most of a small answer's compile). The compilation, so its diagnostics and image, is the same either way.
        The base has no trees, so no parse options of its own: the sources are parsed with `parse_options`."""
        options = options or self._options
        key = (assembly_name, id(options), *map(id, references))
        kept = self._bases.get(key)
        if kept is None:
            if len(self._bases) >= MAX_BASE_COMPILATIONS:  # callers that make a reference per call: never grow
                self._bases.clear()
            # The options and references are kept with it: their ids in the key stay theirs while it lives.
            kept = self._bases[key] = (_compilation(assembly_name, [], self._references, references, options, self._parse_options),
                                       options, tuple(references))
        return kept[0].AddSyntaxTrees(_trees(sources, parse_options or self._parse_options))

    def _emit_options(self, executable: bool, debug: bool, unsafe: bool):
        """One options object per kind of build, so emits of one kind share a base compilation."""
        from Microsoft.CodeAnalysis import OptimizationLevel, OutputKind

        key = (executable, debug, unsafe)
        if key not in self._options_by_build:
            options = self._options.WithOutputKind(OutputKind.ConsoleApplication) if executable else self._options
            if debug:
                options = options.WithOptimizationLevel(OptimizationLevel.Debug)
            if unsafe:
                options = options.WithAllowUnsafe(True)
            self._options_by_build[key] = options
        return self._options_by_build[key]

    def check(self, sources: list[tuple[str, str]], references=()) -> list[Diagnostic]:
        """Compiler and analyzer diagnostics of C# files (path, text), on the lines their #line markers name."""
        from Microsoft.CodeAnalysis import AdditionalText
        from Microsoft.CodeAnalysis.Diagnostics import (
            AnalyzerOptions,
            CompilationWithAnalyzers,
            CompilationWithAnalyzersOptions,
        )
        from System.Collections.Immutable import ImmutableArray

        compilation = self._compilation("KiteCheck", sources, references)
        options = CompilationWithAnalyzersOptions(
            AnalyzerOptions(ImmutableArray.Create[AdditionalText]()), None, False, False
        )
        with_analyzers = CompilationWithAnalyzers(compilation, self.analyzers, options)
        found = with_analyzers.GetAllDiagnosticsAsync().GetAwaiter().GetResult()
        return [d for d in map(self._to_kite, found) if d is not None]

    def emit(self, assembly_name: str, sources: list[tuple[str, str]], references=(), executable=False,
             debug=False, unsafe=False) -> Emitted:
        """Compile to an assembly image, without analyzers (check runs those). `debug`: a debugger's build, at
        Debug optimization (every local kept, nothing inlined) with a portable PDB, never what grading runs;
        `unsafe`: kite's own C# that calls native code (the debug engine).

        A build that is not a debugger's skips nullable analysis, which the check ran (a tenth of an emit's CPU): an
        image's diagnostics leave out its warnings, and a build that fails is compiled again with it, so a failure
        reports what it always did."""
        options = self._emit_options(executable, debug, unsafe)
        image: bytes | None = None
        if not debug:
            image, found, pdb = _emit(self._compilation(assembly_name, sources, references, options, self._unanalyzed_parse_options))
        if image is None:
            image, found, pdb = _emit(self._compilation(assembly_name, sources, references, options), debug)
        return Emitted(image, [d for d in map(self._to_kite, found) if d is not None], pdb)

    def reference_from_image(self, image: bytes, aliases: tuple[str, ...] = ()):
        """A reference to an assembly image; with aliases, its types are reached only as `alias::Name` (extern alias)."""
        from Microsoft.CodeAnalysis import AssemblyMetadata
        from System import Array, Byte, String
        from System.Collections.Immutable import ImmutableArray

        # pythonnet does not fill optional struct parameters: every argument is spelled out.
        metadata = AssemblyMetadata.CreateFromImage(Array[Byte](image))
        return metadata.GetReference(None, ImmutableArray.CreateRange[String](Array[String](list(aliases))), False, None, None)

    def _to_kite(self, found) -> Diagnostic | None:
        from Microsoft.CodeAnalysis import DiagnosticSeverity, LineVisibility

        if found.IsSuppressed or found.Severity not in (DiagnosticSeverity.Error, DiagnosticSeverity.Warning):
            return None
        severity = Severity.ERROR if found.Severity == DiagnosticSeverity.Error else Severity.WARNING
        layer = Layer.COMPILER if found.Id.startswith("CS") else Layer.KITE if found.Id.startswith("KT") else Layer.ANALYZERS
        message = GENERATED_MARKER.sub("", found.GetMessage(_invariant_culture()))
        location = found.Location
        if not location.IsInSource:
            return Diagnostic("", 0, 0, severity, found.Id, message, layer)
        tree = location.SourceTree
        if tree.GetLineVisibility(location.SourceSpan.Start) == LineVisibility.Hidden:
            # Scaffolding the user never wrote: a code-generator bug, never a wrong Kite line.
            kite_file = tree.FilePath.removesuffix(".cs")
            return Diagnostic(
                kite_file, 0, 0, Severity.ERROR, INTERNAL_ERROR_ID,
                f"internal error: {found.Id} on generated code with no Kite line: {message}", layer,
            )
        span = location.GetMappedLineSpan()
        start, end = (span.StartLinePosition.Line + 1, span.StartLinePosition.Character + 1), _mapped_end(location, span)
        return Diagnostic(span.Path, *start, severity, found.Id, message, layer, *max(end, start))


def _mapped_end(location, span) -> tuple[int, int]:
    """Where a diagnostic ends in Kite (1-based). Roslyn maps a span by the #line marker before its start; a span
    that goes on over later C# lines ends under another marker (codegen/csharp.py gives expressions lines of their
    own), which alone knows where that end is in Kite."""
    from Microsoft.CodeAnalysis.Text import TextSpan

    end = span.EndLinePosition
    unmapped = location.GetLineSpan()
    if unmapped.EndLinePosition.Line != unmapped.StartLinePosition.Line:
        tail = location.SourceTree.GetMappedLineSpan(TextSpan(location.SourceSpan.End, 0))
        if tail.Path == span.Path:
            end = tail.EndLinePosition
    return end.Line + 1, end.Character + 1


# A #line marker inside C# text a message quotes ('n == 3' is always 'true'): the generator's line break, the marker
# and the space a marker's text starts with (codegen/csharp.py) are not the program's.
GENERATED_MARKER = re.compile(r"\n#line [^\n]*\n ?")


@functools.cache
def _references(runtime: DotnetRuntime):
    """The reference pack as MetadataReferences: once per process (each one holds native memory)."""
    from Microsoft.CodeAnalysis import MetadataReference
    from System.Collections.Generic import List

    references = List[MetadataReference]()
    for path in runtime.packages.reference_dlls:
        if Path(path).name not in WITHOUT_REFERENCES:
            references.Add(MetadataReference.CreateFromFile(path))
    return references


@functools.cache
def _analyzer_types(runtime: DotnetRuntime) -> tuple[AnalyzerType, ...]:
    """Every C# analyzer of the restored packages with its rules, read from ANALYZER_TABLE in their folder (keyed by
    the pinned packages), which the first process to load them all wrote. A check instantiates only the analyzers with
    a rule that can be reported: loading all of them was a fifth of a cold check's CPU (benchmarks/cold_vs_csc.py)."""
    table = runtime.packages.cache_dir / ANALYZER_TABLE
    try:
        return tuple(AnalyzerType(image, name, tuple((rule_id, bool(reported)) for rule_id, reported in rules), bool(always))
                     for image, name, rules, always in json.loads(table.read_text()))
    except (OSError, ValueError, TypeError):  # not written yet, or half of an older format: made again
        pass
    found = tuple(AnalyzerType(Path(path).name, analyzer.GetType().FullName, _rules_of(analyzer), _always_loaded(analyzer))
                  for path, analyzer in _every_analyzer(runtime))
    write_atomically(table, json.dumps([[kind.image, kind.name, kind.rules, kind.always] for kind in found]).encode())
    return found


def _always_loaded(analyzer) -> bool:
    from Microsoft.CodeAnalysis import WellKnownDiagnosticTags
    from Microsoft.CodeAnalysis.Diagnostics import DiagnosticSuppressor

    return isinstance(analyzer, DiagnosticSuppressor) or any(
        WellKnownDiagnosticTags.NotConfigurable in descriptor.CustomTags for descriptor in analyzer.SupportedDiagnostics)


def _rules_of(analyzer) -> tuple[tuple[str, bool], ...]:
    from Microsoft.CodeAnalysis import DiagnosticSeverity

    return tuple((descriptor.Id, bool(descriptor.IsEnabledByDefault and descriptor.DefaultSeverity >= DiagnosticSeverity.Warning))
                 for descriptor in analyzer.SupportedDiagnostics)


def _every_analyzer(runtime: DotnetRuntime) -> list:
    """(image path, instance) of every C# analyzer in the restored packages, as the SDK's compiler loads them."""
    from Microsoft.CodeAnalysis import IAnalyzerAssemblyLoader, LanguageNames
    from Microsoft.CodeAnalysis.Diagnostics import AnalyzerFileReference
    from System.Reflection import Assembly

    class AssemblyLoader(IAnalyzerAssemblyLoader):
        __namespace__ = "Kite.Toolchain"

        def LoadFromPath(self, path):
            return Assembly.LoadFrom(path)

        def AddDependencyLocation(self, path):
            pass

    loader = AssemblyLoader()
    failures: list[str] = []
    found = []
    for path in runtime.packages.analyzer_images:
        reference = AnalyzerFileReference(path, loader)
        reference.AnalyzerLoadFailed += lambda _sender, event, path=path: failures.append(f"{path}: {event.Message}")
        found += [(path, analyzer) for analyzer in reference.GetAnalyzers(LanguageNames.CSharp)]
    if failures:
        raise ToolchainError(f"the .NET analyzers failed to load: {failures[0]}")
    if not found:
        raise ToolchainError("no .NET analyzers were found in the restored packages")
    return found


@functools.cache
def _analyzers(runtime: DotnetRuntime, wanted: tuple[AnalyzerType, ...]):
    """Instances of the `wanted` analyzers and of kite's own, once per process."""
    from Microsoft.CodeAnalysis.Diagnostics import DiagnosticAnalyzer
    from System import Activator
    from System.Collections.Generic import List
    from System.Collections.Immutable import ImmutableArray
    from System.Reflection import Assembly

    images = {Path(path).name: path for path in runtime.packages.analyzer_images}
    analyzers = List[DiagnosticAnalyzer]()
    for kind in wanted:
        found = Assembly.LoadFrom(images[kind.image]).GetType(kind.name) if kind.image in images else None
        if found is None:
            table = runtime.packages.cache_dir / ANALYZER_TABLE
            raise ToolchainError(f"{table} names {kind.name}, which the restored analyzers do not have: delete the file")
        analyzers.Add(Activator.CreateInstance(found))
    for analyzer in _kite_analyzers(runtime):
        analyzers.Add(analyzer)
    return ImmutableArray.CreateRange[DiagnosticAnalyzer](analyzers)


@functools.cache
def _kite_analyzers(runtime: DotnetRuntime):
    """KT007 (KiteSandbox.cs), KT012 and KT016 (KiteText.cs), compiled against the loaded Roslyn and instantiated in this
    process, KT007 with the allowlist."""
    from Microsoft.CodeAnalysis import MetadataReference, OutputKind
    from Microsoft.CodeAnalysis.CSharp import CSharpCompilationOptions
    from System import Activator, Array, Byte, Object, String
    from System.Reflection import Assembly

    sources = [(name, (resources.files("kite.dotnet") / name).read_text()) for name in ("KiteSandbox.cs", "KiteText.cs")]

    def compile_image() -> bytes:
        roslyn = [MetadataReference.CreateFromFile(path) for path in runtime.packages.compiler_dlls]
        options = CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary)
        image, found, _ = _emit(_compilation("KiteSandbox", sources, _references(runtime), roslyn, options, None))
        if image is None:
            first = next(str(d) for d in found if d.Severity.ToString() == "Error")
            raise ToolchainError(f"Kite's sandbox analyzer does not compile: {first}")
        return image

    assembly = Assembly.Load(Array[Byte](own_image(runtime.packages, "KiteAnalyzers", [text for _, text in sources], compile_image)))
    allowlist = Allowlist.load()
    tables = (allowlist.types, allowlist.members, allowlist.refused, allowlist.never)
    arguments = Array[Object]([Array[String](sorted(table)) for table in tables])
    sandbox = Activator.CreateInstance(assembly.GetType("Kite.Toolchain.SandboxAnalyzer"), arguments)
    return [sandbox, *(Activator.CreateInstance(assembly.GetType(f"Kite.Toolchain.{name}")) for name in ("TextJoinAnalyzer", "ListLiteralAnalyzer"))]


def _compilation(assembly_name: str, sources: list[tuple[str, str]], base_references, references, options, parse_options):
    """A C# compilation of (path, text) sources: every compile kite does goes through here.

    base_references is the .NET list built once per process, copied on the .NET side (a copy through
    Python costs milliseconds a compile); references are the few extras."""
    from Microsoft.CodeAnalysis import MetadataReference
    from Microsoft.CodeAnalysis.CSharp import CSharpCompilation
    from System.Collections.Generic import List

    all_references = List[MetadataReference](base_references)
    for reference in references:
        all_references.Add(reference)
    return CSharpCompilation.Create(assembly_name, _trees(sources, parse_options), all_references, options)


def _trees(sources: list[tuple[str, str]], parse_options):
    from Microsoft.CodeAnalysis import SyntaxTree
    from Microsoft.CodeAnalysis.CSharp import CSharpSyntaxTree
    from Microsoft.CodeAnalysis.Text import SourceText
    from System.Collections.Generic import List
    from System.Text import Encoding

    trees = List[SyntaxTree]()
    for path, text in sources:
        trees.Add(CSharpSyntaxTree.ParseText(SourceText.From(text, Encoding.UTF8), parse_options, path))
    return trees


def _emit(compilation, debug: bool = False) -> tuple[bytes | None, list, bytes | None]:
    """The assembly image (None if it failed), Roslyn's own diagnostics, and with `debug` its portable PDB."""
    from System.IO import MemoryStream

    stream = MemoryStream()
    if not debug:
        result = compilation.Emit(stream)
        return (bytes(stream.ToArray()) if result.Success else None), list(result.Diagnostics), None
    from Microsoft.CodeAnalysis.Emit import DebugInformationFormat, EmitOptions

    pdb = MemoryStream()
    options = EmitOptions().WithDebugInformationFormat(DebugInformationFormat.PortablePdb)
    result = compilation.Emit(stream, pdb, None, None, None, options)
    if not result.Success:
        return None, list(result.Diagnostics), None
    return bytes(stream.ToArray()), list(result.Diagnostics), bytes(pdb.ToArray())


def _invariant_culture():
    from System.Globalization import CultureInfo

    return CultureInfo.InvariantCulture
