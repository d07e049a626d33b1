// KT012 and KT016 (below). KT012: `+` on str joins two strings only (LANGUAGE.md section 11). C# would turn the other operand into its own
// spelling (`True`, nothing for none, a .NET type name for a list), so the analyzer refuses it on the compiler's
// types, whatever the expression: `"a" + 1`, `1 + "a"`, `text += flag`. Compiled with KiteSandbox.cs.
#nullable enable
using System;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Kite.Toolchain
{
    [DiagnosticAnalyzer(LanguageNames.CSharp)]
    public sealed class TextJoinAnalyzer : DiagnosticAnalyzer
    {
        public static readonly DiagnosticDescriptor Rule = new DiagnosticDescriptor(
            "KT012",
            "'+' on str joins two strings only",
            "'+' joins two strings only, and this is {0}: write f\"...{{value}}\" or to_str(value)",
            "Kite",
            DiagnosticSeverity.Error,
            isEnabledByDefault: true);

        public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

        public override void Initialize(AnalysisContext context)
        {
            context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.Analyze | GeneratedCodeAnalysisFlags.ReportDiagnostics);
            context.EnableConcurrentExecution();
            context.RegisterOperationAction(CheckJoin, OperationKind.Binary);
            context.RegisterOperationAction(CheckJoinAssignment, OperationKind.CompoundAssignment);
        }

        private static void CheckJoin(OperationAnalysisContext context)
        {
            var join = (IBinaryOperation)context.Operation;
            if (join.OperatorKind == BinaryOperatorKind.Add && IsText(join.Type))
            {
                Check(context, join.LeftOperand, join.RightOperand);
            }
        }

        private static void CheckJoinAssignment(OperationAnalysisContext context)
        {
            var join = (ICompoundAssignmentOperation)context.Operation;
            if (join.OperatorKind == BinaryOperatorKind.Add && IsText(join.Target.Type))
            {
                Check(context, join.Value);
            }
        }

        /// <summary>Whether the operation is a Kite line's own code (not the generator's scaffolding).</summary>
        internal static bool OnKiteLine(OperationAnalysisContext context)
        {
            var tree = context.Operation.Syntax.SyntaxTree;
            return tree.FilePath.EndsWith(SandboxAnalyzer.KiteFileSuffix, StringComparison.Ordinal)
                && tree.GetLineVisibility(context.Operation.Syntax.SpanStart, context.CancellationToken) == LineVisibility.Visible;
        }

        private static void Check(OperationAnalysisContext context, params IOperation[] operands)
        {
            if (!OnKiteLine(context))
            {
                return;
            }
            // The first operand that is not a string before C# converted it to object for the join, or a str? that
            // may be none here (C# would join it as nothing).
            foreach (var operand in operands.Select(Unconverted))
            {
                var spelled = !IsText(operand.Type) ? KiteSpelling(operand) : MaybeNone(operand) ? "a str? that may be none" : null;
                if (spelled is not null)
                {
                    context.ReportDiagnostic(Diagnostic.Create(Rule, operand.Syntax.GetLocation(), spelled));
                    return;
                }
            }
        }

        private static bool MaybeNone(IOperation operand) =>
            operand.SemanticModel?.GetTypeInfo(operand.Syntax).Nullability.FlowState == NullableFlowState.MaybeNull;

        private static IOperation Unconverted(IOperation operand) =>
            operand is IConversionOperation { IsImplicit: true } conversion ? conversion.Operand : operand;

        private static bool IsText(ITypeSymbol? type) => type?.SpecialType == SpecialType.System_String;

        /// <summary>What the operand is, in Kite's words: "an int", "none", "a list<int>".</summary>
        private static string KiteSpelling(IOperation operand)
        {
            if (operand.ConstantValue is { HasValue: true, Value: null } || operand.Type is null)
            {
                return "none";
            }
            var name = KiteType(operand.Type);
            return ("aeiou".Contains(name[0]) ? "an " : "a ") + name;
        }

        internal static string KiteType(ITypeSymbol type)
        {
            switch (type.SpecialType)
            {
                case SpecialType.System_Int32:
                    return "int";
                case SpecialType.System_Decimal:
                    return "dec";
                case SpecialType.System_Boolean:
                    return "bool";
                case SpecialType.System_Char:
                    return "char";
                case SpecialType.System_String:
                    return "str";
            }
            if (type is INamedTypeSymbol named)
            {
                if (named.OriginalDefinition.SpecialType == SpecialType.System_Nullable_T)
                {
                    return KiteType(named.TypeArguments[0]) + "?";
                }
                var kite = named.Name switch
                {
                    "List" => "list",
                    "Dictionary" => "map",
                    "HashSet" => "set",
                    _ => null,
                };
                if (kite is not null && named.ContainingNamespace?.ToDisplayString() == "System.Collections.Generic")
                {
                    return kite + "<" + string.Join(", ", named.TypeArguments.Select(KiteType)) + ">";
                }
            }
            return type.Name;
        }
    }

    // KT016: a list literal is a list (LANGUAGE.md section 3). Where Kite gives a `[...]` its type from its place it
    // is a C# collection expression, which C# would also make a set or a map: `expect evens(xs) == [4, 2, 4]` beside
    // an answer's `-> set<int>` would compare a set {4, 2}, and an answer that loses order and repeats would pass.
    [DiagnosticAnalyzer(LanguageNames.CSharp)]
    public sealed class ListLiteralAnalyzer : DiagnosticAnalyzer
    {
        public static readonly DiagnosticDescriptor Rule = new DiagnosticDescriptor(
            "KT016",
            "a list literal is a list",
            "a list literal is a list, and here it would become a {0}, which has no order or repeats: make a {0} with {0}() and add to it, or compare with a list",
            "Kite",
            DiagnosticSeverity.Error,
            isEnabledByDefault: true);

        public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

        public override void Initialize(AnalysisContext context)
        {
            context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.Analyze | GeneratedCodeAnalysisFlags.ReportDiagnostics);
            context.EnableConcurrentExecution();
            context.RegisterOperationAction(CheckLiteral, OperationKind.CollectionExpression);
        }

        private static void CheckLiteral(OperationAnalysisContext context)
        {
            var literal = (ICollectionExpressionOperation)context.Operation;
            // `[]` is empty as a set or a map too: `seen == []` means what it says.
            if (literal.Elements.Length > 0 && literal.Type is { } type && IsSetOrMap(type) && TextJoinAnalyzer.OnKiteLine(context))
            {
                context.ReportDiagnostic(Diagnostic.Create(Rule, literal.Syntax.GetLocation(), TextJoinAnalyzer.KiteType(type)));
            }
        }

        /// <summary>A type that keeps no order or repeats of what it is made of: a set or a map, or one of their
        /// interfaces.</summary>
        private static bool IsSetOrMap(ITypeSymbol type) =>
            new[] { type }.Concat(type.AllInterfaces).OfType<INamedTypeSymbol>().Any(named =>
                named.ContainingNamespace?.ToDisplayString() == "System.Collections.Generic"
                && named.Name is "ISet" or "IReadOnlySet" or "IDictionary" or "IReadOnlyDictionary");
    }
}
