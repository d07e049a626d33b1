// KT007: graded Kite code binds only to Kite's own code, the standard library and an allowlist of .NET
// (compiler/dotnet/allowlist.toml, handed to the constructor). Compiled by kite at run time into an analyzer
// that runs with the .NET analyzers, so the rule holds before any code executes.
//
// Every user line of a Kite file (`*.kite.cs`, not under #line hidden) is walked twice: every type it names by
// its syntax (declarations, type arguments, `use`), and every operation of its member bodies, which is everything
// an expression binds to, named or not: calls, members, constructors, operators, conversions, foreach, delegates,
// collection builders, and what code that does not compile would have bound to.
#nullable enable
using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Kite.Toolchain
{
    [DiagnosticAnalyzer(LanguageNames.CSharp)]
    public sealed class SandboxAnalyzer : DiagnosticAnalyzer
    {
        public static readonly DiagnosticDescriptor Rule = new DiagnosticDescriptor(
            "KT007",
            "API not allowed in graded Kite code",
            "'{0}' is not allowed in Kite programs: only Kite's own code, the standard library and the .NET allowlist "
                + "(strings, numbers, collections, LINQ, Math, StringBuilder)",
            "Kite",
            DiagnosticSeverity.Error,
            isEnabledByDefault: true);

        internal const string KiteFileSuffix = ".kite.cs";  // the C# of a Kite file (KiteText.cs too)
        private const string StdlibAssembly = "Kite.Std";  // compiler/dotnet/stdlib.py

        private static readonly SymbolDisplayFormat FullName = SymbolDisplayFormat.FullyQualifiedFormat
            .WithGlobalNamespaceStyle(SymbolDisplayGlobalNamespaceStyle.Omitted)
            .RemoveMiscellaneousOptions(SymbolDisplayMiscellaneousOptions.UseSpecialTypes);

        private readonly HashSet<string> allowedTypes;
        private readonly HashSet<string> allowedMembers;
        private readonly HashSet<string> refusedMembers;
        private readonly HashSet<string> neverTypes;
        private readonly string[] neverNamespaces;
        private readonly HashSet<string> allowedNamespaces;

        public SandboxAnalyzer(string[] allowedTypes, string[] allowedMembers, string[] refusedMembers, string[] never)
        {
            this.allowedTypes = new HashSet<string>(allowedTypes, StringComparer.Ordinal);
            this.allowedMembers = new HashSet<string>(allowedMembers, StringComparer.Ordinal);
            this.refusedMembers = new HashSet<string>(refusedMembers, StringComparer.Ordinal);
            neverTypes = new HashSet<string>(never.Where(name => !name.EndsWith(".*", StringComparison.Ordinal)), StringComparer.Ordinal);
            neverNamespaces = never.Where(name => name.EndsWith(".*", StringComparison.Ordinal)).Select(name => name[..^2]).ToArray();
            allowedNamespaces = new HashSet<string>(
                allowedTypes.Concat(allowedMembers.Select(member => member[..member.LastIndexOf('.')])).Select(NamespaceOf),
                StringComparer.Ordinal);
        }

        public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

        public override void Initialize(AnalysisContext context)
        {
            context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.Analyze | GeneratedCodeAnalysisFlags.ReportDiagnostics);
            context.EnableConcurrentExecution();
            context.RegisterSemanticModelAction(CheckFile);
        }

        private void CheckFile(SemanticModelAnalysisContext context)
        {
            var tree = context.SemanticModel.SyntaxTree;
            if (!tree.FilePath.EndsWith(KiteFileSuffix, StringComparison.Ordinal))
            {
                return;
            }
            var walk = new Walk(this, context);
            foreach (var node in tree.GetRoot(context.CancellationToken).DescendantNodes())
            {
                walk.Syntax(node);
                if (node is BaseMethodDeclarationSyntax || node is EqualsValueClauseSyntax && node.FirstAncestorOrSelf<BaseMethodDeclarationSyntax>() is null)
                {
                    // A member body, or an initializer outside one (a module constant): each operation once.
                    var body = context.SemanticModel.GetOperation(node, context.CancellationToken);
                    foreach (var operation in body?.DescendantsAndSelf() ?? Enumerable.Empty<IOperation>())
                    {
                        walk.Operation(operation);
                    }
                }
            }
        }

        /// <summary>One file's check: reports each refused name once per line.</summary>
        private sealed class Walk
        {
            private readonly SandboxAnalyzer rules;
            private readonly SemanticModelAnalysisContext context;
            private readonly SemanticModel model;
            private readonly HashSet<(int, string)> reported = new HashSet<(int, string)>();
            private readonly Dictionary<ISymbol, string?> verdicts = new Dictionary<ISymbol, string?>(SymbolEqualityComparer.Default);
            private readonly Dictionary<ITypeSymbol, bool> neverTypes = new Dictionary<ITypeSymbol, bool>(SymbolEqualityComparer.Default);

            public Walk(SandboxAnalyzer rules, SemanticModelAnalysisContext context)
            {
                this.rules = rules;
                this.context = context;
                model = context.SemanticModel;
            }

            private bool OnUserLine(SyntaxNode node) =>
                model.SyntaxTree.GetLineVisibility(node.SpanStart, context.CancellationToken) == LineVisibility.Visible;

            public void Syntax(SyntaxNode node)
            {
                if (!OnUserLine(node))
                {
                    return;
                }
                switch (node)
                {
                    case UsingDirectiveSyntax directive:
                        CheckUse(directive);
                        break;
                    case IdentifierNameSyntax { IsVar: true }:
                        break;  // the type the value has, not one the line names: its operations are checked
                    case TypeSyntax type when type is SimpleNameSyntax or PredefinedTypeSyntax && SyntaxFacts.IsInNamespaceOrTypeContext(type):
                        // A type the line names (a declaration, a type argument, T() made): expressions are their operations.
                        CheckBinding(node);
                        break;
                }
            }

            public void Operation(IOperation operation)
            {
                if (!OnUserLine(operation.Syntax))
                {
                    return;
                }
                ISymbol? bound = operation switch
                {
                    IInvocationOperation call => call.TargetMethod,
                    IObjectCreationOperation creation => creation.Constructor,
                    IMemberReferenceOperation member => member.Member,
                    IBinaryOperation binary => binary.OperatorMethod,
                    IUnaryOperation unary => unary.OperatorMethod,
                    ICompoundAssignmentOperation compound => compound.OperatorMethod,
                    IIncrementOrDecrementOperation step => step.OperatorMethod,
                    IConversionOperation conversion => conversion.OperatorMethod,
                    ICollectionExpressionOperation collection => collection.ConstructMethod,
                    _ => null,
                };
                if (bound is not null && Check(bound, operation.Syntax))
                {
                    return;
                }
                switch (operation)
                {
                    case { Kind: OperationKind.Invalid or OperationKind.None }:
                        // Code that does not bind, or that IOperation does not model: what the syntax binds to.
                        CheckBinding(operation.Syntax);
                        break;
                    case IDynamicInvocationOperation or IDynamicMemberReferenceOperation or IDynamicIndexerAccessOperation
                        or IDynamicObjectCreationOperation:
                        Report(operation.Syntax, "dynamic");
                        return;
                    case IDelegateCreationOperation { Type: { } delegateType } when rules.RefusedType(delegateType, model.Compilation) is { } refusedDelegate:
                        Report(operation.Syntax, refusedDelegate);
                        return;
                    case IForEachLoopOperation loop when loop.Syntax is CommonForEachStatementSyntax statement:
                        var info = model.GetForEachStatementInfo(statement);
                        foreach (var step in new ISymbol?[] { info.GetEnumeratorMethod, info.MoveNextMethod, info.CurrentProperty, info.DisposeMethod })
                        {
                            if (step is not null)
                            {
                                Check(step, statement.Expression);
                            }
                        }
                        return;
                }
                if (operation.Type is { } type && MentionsNever(type))
                {
                    Report(operation.Syntax, Name(type));
                }
            }

            /// <summary>Every operation's type is asked this: the answer is kept per type.</summary>
            private bool MentionsNever(ITypeSymbol type)
            {
                if (!neverTypes.TryGetValue(type, out var never))
                {
                    never = rules.MentionsNever(type);
                    neverTypes[type] = never;
                }
                return never;
            }

            private void CheckUse(UsingDirectiveSyntax directive)
            {
                if (directive.NamespaceOrType is null
                    || model.GetSymbolInfo(directive.NamespaceOrType, context.CancellationToken).Symbol is not INamespaceSymbol space)
                {
                    return;  // not a namespace: the compiler says so
                }
                var name = space.ToDisplayString();
                var hasKiteCode = space.GetTypeMembers().Any(type => IsKiteCode(type, model.Compilation));
                if (!hasKiteCode && !rules.allowedNamespaces.Contains(name))
                {
                    Report(directive.NamespaceOrType, name);
                }
            }

            private void CheckBinding(SyntaxNode node)
            {
                if (node.Parent is UsingDirectiveSyntax or QualifiedNameSyntax { Parent: UsingDirectiveSyntax })
                {
                    return;
                }
                var info = model.GetSymbolInfo(node, context.CancellationToken);
                var symbols = info.Symbol is null ? info.CandidateSymbols : ImmutableArray.Create(info.Symbol);
                foreach (var symbol in symbols)
                {
                    if (!(symbol is ITypeSymbol && IsQualifier(node)))
                    {
                        Check(symbol, node);
                    }
                }
            }

            /// <summary>Checks one bound symbol; true when it was refused (and reported).</summary>
            private bool Check(ISymbol symbol, SyntaxNode where)
            {
                if (!verdicts.TryGetValue(symbol, out var refused))
                {
                    refused = rules.Refused(symbol, model.Compilation);
                    verdicts[symbol] = refused;
                }
                if (refused is null)
                {
                    return false;
                }
                Report(where, refused);
                return true;
            }

            private void Report(SyntaxNode where, string name)
            {
                var location = where.GetLocation();
                if (reported.Add((location.GetMappedLineSpan().StartLinePosition.Line, name)))
                {
                    context.ReportDiagnostic(Diagnostic.Create(Rule, location, name));
                }
            }
        }

        /// <summary>The name KT007 reports for this symbol, or null when Kite code may bind to it.</summary>
        private string? Refused(ISymbol symbol, Compilation compilation)
        {
            if (symbol is IAliasSymbol alias)
            {
                symbol = alias.Target;
            }
            if (symbol is IMethodSymbol { ReducedFrom: { } extension })
            {
                symbol = extension;
            }
            if (symbol is IMethodSymbol { AssociatedSymbol: IPropertySymbol or IEventSymbol } accessor)
            {
                symbol = accessor.AssociatedSymbol;  // get_X, add_X: judged and named as X
            }
            symbol = symbol.OriginalDefinition;
            switch (symbol)
            {
                case INamespaceSymbol or ILocalSymbol or IParameterSymbol or ILabelSymbol or IRangeVariableSymbol
                    or IDiscardSymbol or ITypeParameterSymbol or IErrorTypeSymbol:
                    return null;
                case ITypeSymbol type:
                    return RefusedType(type, compilation);
            }
            if (IsKiteCode(symbol, compilation))
            {
                return null;
            }
            if (symbol is IEventSymbol || symbol.ContainingType is null)
            {
                return Name(symbol);
            }
            var owner = Key(Outermost(symbol.ContainingType));
            var member = owner + "." + symbol.Name;
            if (refusedMembers.Contains(member) || MentionsNever(symbol))
            {
                return Name(symbol);
            }
            return allowedTypes.Contains(owner) || allowedMembers.Contains(member) ? null : Name(symbol);
        }

        /// <summary>The first type in this one (itself, then its type arguments) Kite code may not use; null if none.</summary>
        private string? RefusedType(ITypeSymbol type, Compilation compilation)
        {
            switch (type)
            {
                case ITypeParameterSymbol or IErrorTypeSymbol:
                    return null;
                case IArrayTypeSymbol array:
                    return RefusedType(array.ElementType, compilation);
                case INamedTypeSymbol named:
                    if (!IsKiteCode(named, compilation) && !allowedTypes.Contains(Key(Outermost(named))))
                    {
                        return Name(named);
                    }
                    return named.TypeArguments.Select(argument => RefusedType(argument, compilation)).FirstOrDefault(name => name is not null);
                default:
                    return Name(type);  // dynamic, pointers
            }
        }

        /// <summary>A signature or type that takes, returns or is one of the [never] types.</summary>
        private bool MentionsNever(ISymbol symbol) => symbol switch
        {
            IMethodSymbol method => MentionsNever(method.ReturnType) || method.Parameters.Any(parameter => MentionsNever(parameter.Type)),
            IPropertySymbol property => MentionsNever(property.Type) || property.Parameters.Any(parameter => MentionsNever(parameter.Type)),
            IFieldSymbol field => MentionsNever(field.Type),
            IArrayTypeSymbol array => MentionsNever(array.ElementType),
            IPointerTypeSymbol pointer => MentionsNever(pointer.PointedAtType),
            INamedTypeSymbol named => IsNever(named) || named.TypeArguments.Any(MentionsNever),
            _ => false,
        };

        private bool IsNever(INamedTypeSymbol type)
        {
            var outermost = Outermost(type);
            var space = outermost.ContainingNamespace?.ToDisplayString() ?? "";
            return neverTypes.Contains(Key(outermost))
                || neverNamespaces.Any(never => space == never || space.StartsWith(never + ".", StringComparison.Ordinal));
        }

        /// <summary>The user's own declarations and the standard library: Kite code, allowed as a whole.</summary>
        private static bool IsKiteCode(ISymbol symbol, Compilation compilation)
        {
            var assembly = symbol.ContainingAssembly;
            return assembly is not null
                && (SymbolEqualityComparer.Default.Equals(assembly, compilation.Assembly) || assembly.Name == StdlibAssembly);
        }

        /// <summary>Types nested in a type (List`1.Enumerator, extension blocks) are listed with it.</summary>
        private static INamedTypeSymbol Outermost(INamedTypeSymbol type)
        {
            var current = type.OriginalDefinition;
            while (current.ContainingType is { } outer)
            {
                current = outer.OriginalDefinition;
            }
            return current;
        }

        /// <summary>The allowlist's spelling of a type: Namespace.Name`arity.</summary>
        private static string Key(INamedTypeSymbol type)
        {
            var space = type.ContainingNamespace is { IsGlobalNamespace: false } containing ? containing.ToDisplayString() + "." : "";
            return space + type.MetadataName;
        }

        private static string NamespaceOf(string key) => key.Contains('.') ? key[..key.LastIndexOf('.')] : "";

        /// <summary>What a message names: the type, or the type and member (a constructor by its type).</summary>
        private static string Name(ISymbol symbol)
        {
            switch (symbol)
            {
                case IDynamicTypeSymbol:
                    return "dynamic";
                case IArrayTypeSymbol array:
                    return Name(array.ElementType) + "[]";
                case INamedTypeSymbol type:
                    return TypeName(type.OriginalDefinition);
                case ITypeSymbol type:
                    return type.ToDisplayString(FullName);
                case IMethodSymbol { MethodKind: MethodKind.Constructor or MethodKind.StaticConstructor } constructor:
                    return Name(constructor.ContainingType);
            }
            var member = symbol.OriginalDefinition;
            return member.ContainingType is null ? member.ToDisplayString(FullName) : Name(member.ContainingType) + "." + member.Name;
        }

        /// <summary>Namespace.Outer.Type&lt;T&gt;, spelled the same way whatever C# calls the type (nint is System.IntPtr).</summary>
        private static string TypeName(INamedTypeSymbol type)
        {
            var outer = type.ContainingType is { } containing
                ? TypeName(containing) + "."
                : type.ContainingNamespace is { IsGlobalNamespace: false } space ? space.ToDisplayString() + "." : "";
            var parameters = type.TypeParameters.IsEmpty ? "" : "<" + string.Join(", ", type.TypeParameters.Select(parameter => parameter.Name)) + ">";
            return outer + type.Name + parameters;
        }

        /// <summary>A type that only qualifies the member after it (File in File.Delete): the member is checked instead.</summary>
        private static bool IsQualifier(SyntaxNode name)
        {
            var whole = name.Parent switch
            {
                MemberAccessExpressionSyntax access when access.Name == name => access,
                QualifiedNameSyntax qualified when qualified.Right == name => qualified,
                _ => name,
            };
            return whole.Parent switch
            {
                MemberAccessExpressionSyntax outer => outer.Expression == whole,
                QualifiedNameSyntax outer => outer.Left == whole,
                _ => false,
            };
        }
    }
}
