// What a debug build's portable PDB and metadata say, as plain JSON for kite.debug.mapping (which owns every
// decision about Kite lines and names): documents, each method's sequence points, parameters and local scopes,
// the test attribute's title, and each type's fields and enum members. Also: field tokens by name in any module
// (the runtime's List<T>, Dictionary<K, V>, HashSet<T>, Exception), which the engine reads values through.
#nullable enable
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text.Json.Nodes;

namespace Kite.Debugging
{
    internal static class Symbols
    {
        public static JsonObject Read(string dll, string pdbPath)
        {
            using var pe = new PEReader(File.OpenRead(dll));
            var md = pe.GetMetadataReader();
            using var provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdbPath));
            var pdb = provider.GetMetadataReader();
            var documents = new JsonArray();
            var documentIndex = new Dictionary<DocumentHandle, int>();
            foreach (var handle in pdb.Documents)
            {
                var document = pdb.GetDocument(handle);
                documentIndex[handle] = documents.Count;
                documents.Add(new JsonObject
                {
                    ["path"] = pdb.GetString(document.Name),
                    ["checksum"] = Convert.ToHexString(pdb.GetBlobBytes(document.Hash)).ToLowerInvariant(),
                });
            }
            var methods = new JsonArray();
            foreach (var mh in md.MethodDefinitions)
            {
                var method = md.GetMethodDefinition(mh);
                var info = pdb.GetMethodDebugInformation(mh.ToDebugInformationHandle());
                var points = new JsonArray();
                int document = info.Document.IsNil ? -1 : documentIndex[info.Document];
                foreach (var sp in info.GetSequencePoints())
                {
                    points.Add(sp.IsHidden
                        ? new JsonArray(sp.Offset, 0, 0, -1)
                        : new JsonArray(sp.Offset, sp.StartLine, sp.StartColumn, documentIndex[sp.Document]));
                }
                if (points.Count == 0) continue;
                var locals = new JsonArray();
                foreach (var scopeHandle in pdb.GetLocalScopes(mh))
                {
                    var scope = pdb.GetLocalScope(scopeHandle);
                    foreach (var vh in scope.GetLocalVariables())
                    {
                        var variable = pdb.GetLocalVariable(vh);
                        if (variable.Attributes != 0) continue;  // compiler temporaries
                        locals.Add(new JsonArray(pdb.GetString(variable.Name), variable.Index, scope.StartOffset, scope.EndOffset));
                    }
                }
                var parameters = new JsonArray();
                foreach (var name in method.GetParameters().Select(md.GetParameter).Where(p => p.SequenceNumber > 0)
                             .OrderBy(p => p.SequenceNumber).Select(p => md.GetString(p.Name)))
                {
                    parameters.Add(name);
                }
                methods.Add(new JsonObject
                {
                    ["token"] = MetadataTokens.GetToken(mh),
                    ["name"] = md.GetString(method.Name),
                    ["type"] = FullName(md, method.GetDeclaringType()),
                    ["test"] = TestTitle(md, method),
                    ["static"] = (method.Attributes & System.Reflection.MethodAttributes.Static) != 0,
                    ["parameters"] = parameters,
                    ["points"] = points,
                    ["locals"] = locals,
                    ["document"] = document,
                });
            }
            var types = new JsonArray();
            foreach (var th in md.TypeDefinitions)
            {
                var type = md.GetTypeDefinition(th);
                var fields = new JsonArray();
                var members = new JsonArray();
                foreach (var fh in type.GetFields())
                {
                    var field = md.GetFieldDefinition(fh);
                    var name = md.GetString(field.Name);
                    if (name.StartsWith("<", StringComparison.Ordinal) && name.EndsWith(">k__BackingField", StringComparison.Ordinal))
                    {
                        fields.Add(new JsonArray(MetadataTokens.GetToken(fh), name[1..name.IndexOf('>')]));
                    }
                    else if ((field.Attributes & System.Reflection.FieldAttributes.Literal) != 0 && !field.GetDefaultValue().IsNil)
                    {
                        var blob = md.GetBlobReader(md.GetConstant(field.GetDefaultValue()).Value);
                        members.Add(new JsonArray(name, blob.ReadInt32()));
                    }
                }
                types.Add(new JsonObject
                {
                    ["token"] = MetadataTokens.GetToken(th),
                    ["name"] = md.GetString(type.Name),
                    ["fields"] = fields,
                    ["members"] = members,
                });
            }
            return new JsonObject { ["documents"] = documents, ["methods"] = methods, ["types"] = types };
        }

        // As reflection's Assembly.GetType spells it: Namespace.Outer+Inner
        private static string FullName(MetadataReader md, TypeDefinitionHandle handle)
        {
            var type = md.GetTypeDefinition(handle);
            var name = md.GetString(type.Name);
            if (type.IsNested) return FullName(md, type.GetDeclaringType()) + "+" + name;
            var ns = md.GetString(type.Namespace);
            return ns.Length > 0 ? ns + "." + name : name;
        }

        // [Kite.Test("title", line)] on a method generated from a Kite test block
        private static string? TestTitle(MetadataReader md, MethodDefinition method)
        {
            foreach (var ah in method.GetCustomAttributes())
            {
                var attribute = md.GetCustomAttribute(ah);
                if (attribute.Constructor.Kind != HandleKind.MemberReference) continue;
                var ctor = md.GetMemberReference((MemberReferenceHandle)attribute.Constructor);
                if (ctor.Parent.Kind != HandleKind.TypeReference) continue;
                var type = md.GetTypeReference((TypeReferenceHandle)ctor.Parent);
                if (md.GetString(type.Name) != "TestAttribute" || md.GetString(type.Namespace) != "Kite") continue;
                var blob = md.GetBlobReader(attribute.Value);
                blob.ReadUInt16();  // prolog
                return blob.ReadSerializedString();
            }
            return null;
        }
    }

    /// <summary>Type and field tokens by name in a module's metadata, read from its file once.</summary>
    internal sealed class ModuleMetadata
    {
        private static readonly Dictionary<string, ModuleMetadata> Loaded = new();
        private readonly Dictionary<string, int> typeTokens = new();
        private readonly Dictionary<(int, string), int> fieldTokens = new();
        private readonly Dictionary<int, string> typeNames = new();
        private readonly Dictionary<int, int> baseTypes = new();

        public static ModuleMetadata Of(string path)
        {
            lock (Loaded)
            {
                if (!Loaded.TryGetValue(path, out var found))
                {
                    found = new ModuleMetadata(path);
                    Loaded[path] = found;
                }
                return found;
            }
        }

        private ModuleMetadata(string path)
        {
            using var pe = new PEReader(File.OpenRead(path));
            var md = pe.GetMetadataReader();
            foreach (var th in md.TypeDefinitions)
            {
                var type = md.GetTypeDefinition(th);
                int token = MetadataTokens.GetToken(th);
                var name = md.GetString(type.Name);
                var ns = md.GetString(type.Namespace);
                var full = type.IsNested ? name : (ns.Length > 0 ? ns + "." + name : name);
                typeNames[token] = full;
                typeTokens.TryAdd(full, token);
                if (!type.BaseType.IsNil)
                {
                    baseTypes[token] = MetadataTokens.GetToken(type.BaseType);
                    if (type.BaseType.Kind == HandleKind.TypeReference)
                    {
                        var reference = md.GetTypeReference((TypeReferenceHandle)type.BaseType);
                        var baseName = md.GetString(reference.Namespace) + "." + md.GetString(reference.Name);
                        typeNames[MetadataTokens.GetToken(type.BaseType)] = baseName;
                    }
                }
                foreach (var fh in type.GetFields())
                {
                    fieldTokens[(token, md.GetString(md.GetFieldDefinition(fh).Name))] = MetadataTokens.GetToken(fh);
                }
            }
        }

        public int Type(string fullName) => typeTokens.TryGetValue(fullName, out var t) ? t : 0;
        public int Field(int type, string name) => fieldTokens.TryGetValue((type, name), out var t) ? t : 0;
        public string NameOf(int type) => typeNames.TryGetValue(type, out var n) ? n : "";
        public string BaseNameOf(int type) => baseTypes.TryGetValue(type, out var b) ? NameOf(b) : "";
    }

    /// <summary>A parameter's type as a signature writes it: an element type code (CorElementType's, which
    /// System.Reflection.Metadata's PrimitiveTypeCode shares), a class or value type by name with its type
    /// arguments, an array of one element type, or a method's type parameter by index.</summary>
    internal sealed record Shape(int Code, string Name, Shape[] Arguments, int Index)
    {
        public const int ValueType = 0x11, Class = 0x12, Array = 0x1d, Object = 0x1c, MethodParameter = 0x1e;
    }

    /// <summary>A public static method's overloads by name, decoded from a module's file (the standard library's).</summary>
    internal sealed record Overload(int Token, Shape[] Parameters, int TypeParameters)
    {
        private static readonly Dictionary<(string, string, string), List<Overload>> Read = new();

        public static List<Overload> Of(string path, string typeName, string methodName)
        {
            lock (Read)
            {
                if (Read.TryGetValue((path, typeName, methodName), out var known)) return known;
                using var pe = new PEReader(File.OpenRead(path));
                var md = pe.GetMetadataReader();
                var found = new List<Overload>();
                foreach (var th in md.TypeDefinitions)
                {
                    var type = md.GetTypeDefinition(th);
                    if (type.IsNested || md.GetString(type.Namespace) + "." + md.GetString(type.Name) != typeName) continue;
                    foreach (var mh in type.GetMethods())
                    {
                        var method = md.GetMethodDefinition(mh);
                        var attributes = method.Attributes;
                        if (md.GetString(method.Name) != methodName || (attributes & System.Reflection.MethodAttributes.Static) == 0
                            || (attributes & System.Reflection.MethodAttributes.MemberAccessMask) != System.Reflection.MethodAttributes.Public) continue;
                        var signature = method.DecodeSignature(new ShapeProvider(), null);
                        found.Add(new Overload(MetadataTokens.GetToken(mh), signature.ParameterTypes.ToArray(), signature.GenericParameterCount));
                    }
                }
                Read[(path, typeName, methodName)] = found;
                return found;
            }
        }
    }

    internal sealed class ShapeProvider : ISignatureTypeProvider<Shape, object?>
    {
        private static Shape Named(int code, string name) => new(code, name, System.Array.Empty<Shape>(), 0);

        public Shape GetPrimitiveType(PrimitiveTypeCode typeCode) => Named((int)typeCode, "");
        public Shape GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind)
        {
            var type = reader.GetTypeDefinition(handle);
            return Named(rawTypeKind == (byte)SignatureTypeKind.ValueType ? Shape.ValueType : Shape.Class,
                reader.GetString(type.Namespace) + "." + reader.GetString(type.Name));
        }
        public Shape GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind)
        {
            var type = reader.GetTypeReference(handle);
            return Named(rawTypeKind == (byte)SignatureTypeKind.ValueType ? Shape.ValueType : Shape.Class,
                reader.GetString(type.Namespace) + "." + reader.GetString(type.Name));
        }
        public Shape GetGenericInstantiation(Shape genericType, System.Collections.Immutable.ImmutableArray<Shape> typeArguments) =>
            genericType with { Arguments = typeArguments.ToArray() };
        public Shape GetGenericMethodParameter(object? genericContext, int index) => new(Shape.MethodParameter, "", System.Array.Empty<Shape>(), index);
        public Shape GetSZArrayType(Shape elementType) => new(Shape.Array, "", new[] { elementType }, 0);
        // What the standard library's parameters never are: shapes nothing matches
        public Shape GetGenericTypeParameter(object? genericContext, int index) => Named(0, "!" + index);
        public Shape GetArrayType(Shape elementType, ArrayShape shape) => Named(0, "[,]");
        public Shape GetByReferenceType(Shape elementType) => Named(0, "&");
        public Shape GetPointerType(Shape elementType) => Named(0, "*");
        public Shape GetFunctionPointerType(MethodSignature<Shape> signature) => Named(0, "fn*");
        public Shape GetModifiedType(Shape modifier, Shape unmodifiedType, bool isRequired) => unmodifiedType;
        public Shape GetPinnedType(Shape elementType) => elementType;
        public Shape GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle, byte rawTypeKind) =>
            reader.GetTypeSpecification(handle).DecodeSignature(this, genericContext);
    }
}
