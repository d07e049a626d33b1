// KT007: graded Kite code may not reach outside its own computation. Compiled by kite at run time
// into an analyzer that runs with the .NET analyzers, so the rule holds before any code executes.
#nullable enable
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
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
            "'{0}' is not allowed in Kite programs: no processes, files, network, environment, exit or reflection",
            "Kite",
            DiagnosticSeverity.Error,
            isEnabledByDefault: true);

        // Whole namespaces, and single types, that reach the machine or bypass the rules.
        private static readonly string[] DeniedNamespaces =
        {
            "System.IO", "System.Net", "System.Reflection", "System.Runtime.InteropServices", "System.Runtime.Loader",
            "System.Diagnostics", "System.Threading", "System.Security", "System.Resources", "Microsoft.Win32",
        };
        private static readonly string[] DeniedTypes = { "System.Environment", "System.AppDomain", "System.Activator", "System.GC", "System.Type", "System.Console" };
        // Harmless members of denied places that Kite code reasonably uses.
        private static readonly string[] Allowed =
        {
            "System.Environment.NewLine", "System.IO.StringReader", "System.IO.StringWriter", "System.IO.Path",
            "System.Diagnostics.Debug", "System.Threading.CancellationToken", "System.Type.Name", "System.Type.FullName",
            "System.Console.WriteLine", "System.Console.Write",
        };

        public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => ImmutableArray.Create(Rule);

        public override void Initialize(AnalysisContext context)
        {
            context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.Analyze | GeneratedCodeAnalysisFlags.ReportDiagnostics);
            context.EnableConcurrentExecution();
            context.RegisterOperationAction(Check,
                OperationKind.Invocation, OperationKind.ObjectCreation, OperationKind.PropertyReference,
                OperationKind.FieldReference, OperationKind.MethodReference, OperationKind.EventReference, OperationKind.TypeOf);
        }

        private static void Check(OperationAnalysisContext context)
        {
            ISymbol? symbol = context.Operation switch
            {
                IInvocationOperation call => call.TargetMethod,
                IObjectCreationOperation creation => creation.Constructor,
                IMemberReferenceOperation member => member.Member,
                ITypeOfOperation typeOf => typeOf.TypeOperand,
                _ => null,
            };
            if (symbol is null)
            {
                return;
            }
            var type = symbol as ITypeSymbol ?? symbol.ContainingType;
            if (type is null)
            {
                return;
            }
            var typeName = type.OriginalDefinition.ToDisplayString(SymbolDisplayFormat.FullyQualifiedFormat).Replace("global::", "");
            var memberName = symbol is ITypeSymbol ? typeName : typeName + "." + symbol.Name;
            var namespaceName = type.ContainingNamespace?.ToDisplayString() ?? "";
            if (Allowed.Any(allowed => memberName == allowed || typeName == allowed || memberName.StartsWith(allowed + ".", System.StringComparison.Ordinal)))
            {
                return;
            }
            var denied = DeniedTypes.Contains(typeName)
                || DeniedNamespaces.Any(denied => namespaceName == denied || namespaceName.StartsWith(denied + ".", System.StringComparison.Ordinal));
            if (denied)
            {
                context.ReportDiagnostic(Diagnostic.Create(Rule, context.Operation.Syntax.GetLocation(), memberName));
            }
        }
    }
}
