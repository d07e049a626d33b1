// Kite's standard library (LANGUAGE.md section 7) and the runtime helpers generated code calls.
// Compiled once per process into its own assembly, which every Kite program references.
#nullable enable
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace Kite
{
    /// <summary>The functions a Kite program calls by name: len, upper, split, ...</summary>
    public static class Std
    {
        public static int len(string text) => text.Length;
        public static int len<T>(List<T> items) => items.Count;
        public static int len<T>(HashSet<T> items) => items.Count;
        public static int len<K, V>(Dictionary<K, V> table) where K : notnull => table.Count;
        public static int len<T>(T[] items) => items.Length;
        public static int len<T>(IEnumerable<T> items) => items.Count();

        public static int sum(IEnumerable<int> items)
        {
            try
            {
                return items.Sum();
            }
            catch (OverflowException)
            {
                throw Runtime.Overflow("sum()");
            }
        }
        public static decimal sum(IEnumerable<decimal> items) => items.Sum();

        // Kite's order (LANGUAGE.md section 11): strings ordinal, enums by declaration; a map orders its keys.
        public static T min<T>(T first, T second) where T : IComparable => Runtime.Order<T>().Compare(first, second) <= 0 ? first : second;
        public static T min<T>(IEnumerable<T> items) where T : IComparable => Extreme(items, -1, "min");
        public static K min<K, V>(Dictionary<K, V> table) where K : IComparable => min(table.Keys);
        public static T max<T>(T first, T second) where T : IComparable => Runtime.Order<T>().Compare(first, second) >= 0 ? first : second;
        public static T max<T>(IEnumerable<T> items) where T : IComparable => Extreme(items, 1, "max");
        public static K max<K, V>(Dictionary<K, V> table) where K : IComparable => max(table.Keys);

        public static int abs(int value) => value == int.MinValue ? throw Runtime.Overflow("abs(-2147483648)") : Math.Abs(value);
        public static decimal abs(decimal value) => Math.Abs(value);
        // Half away from zero, as people round by hand: round(2.5, 0) is 3.
        public static decimal round(decimal value, int places) => Math.Round(value, places, MidpointRounding.AwayFromZero);
        public static decimal round(decimal value) => round(value, 0);

        public static string upper(string text) => text.ToUpperInvariant();
        public static string lower(string text) => text.ToLowerInvariant();
        public static string trim(string text) => text.Trim();
        public static List<string> split(string text) =>
            text.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).ToList();
        public static List<string> split(string text, string separator) => text.Split(separator).ToList();
        public static List<string> split(string text, char separator) => text.Split(separator).ToList();
        public static string join<T>(IEnumerable<T> items, string separator) => string.Join(separator, items.Select(item => to_str(item)));
        public static string join<K, V>(Dictionary<K, V> table, string separator) where K : notnull => join(table.Keys, separator);
        public static bool contains(string text, string part) => text.Contains(part, StringComparison.Ordinal);
        public static bool contains(string text, char part) => text.Contains(part);
        public static bool starts_with(string text, string prefix) => text.StartsWith(prefix, StringComparison.Ordinal);
        public static bool ends_with(string text, string suffix) => text.EndsWith(suffix, StringComparison.Ordinal);
        public static string replace(string text, string old, string replacement) => text.Replace(old, replacement, StringComparison.Ordinal);

        public static List<int> range(int count) => range(0, count);
        public static List<int> range(int start, int stop) =>
            stop <= start ? new List<int>() : Enumerable.Range(start, stop - start).ToList();

        // Orderable items only, as min and max: sorting records or lists is a compile error, never a crash at run time.
        public static List<T> sorted<T>(IEnumerable<T> items) where T : IComparable
        {
            var copy = items.ToList();
            copy.Sort(Runtime.Order<T>());
            return copy;
        }

        public static List<K> sorted<K, V>(Dictionary<K, V> table) where K : IComparable => sorted(table.Keys);

        public static List<T> reversed<T>(IEnumerable<T> items)
        {
            var copy = items.ToList();
            copy.Reverse();
            return copy;
        }

        public static List<K> reversed<K, V>(Dictionary<K, V> table) where K : notnull => reversed(table.Keys);

        public static List<K> keys<K, V>(Dictionary<K, V> table) where K : notnull => table.Keys.ToList();
        public static List<V> values<K, V>(Dictionary<K, V> table) where K : notnull => table.Values.ToList();

        public static int? parse_int(string text) =>
            int.TryParse(text.Trim(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var value) ? value : null;
        public static decimal? parse_dec(string text) =>
            decimal.TryParse(text.Trim(), NumberStyles.AllowLeadingSign | NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) ? value : null;

        /// <summary>Kite's spelling of any value: none, true, 1.5, [1, 2], {a: 1}; never the machine's locale.</summary>
        public static string to_str(object? value) => value switch
        {
            null => "none",
            string text => text,
            bool flag => flag ? "true" : "false",
            char letter => letter.ToString(),
            Enum member => KiteName(member.ToString()),
            IFormattable number => number.ToString(null, CultureInfo.InvariantCulture),
            IDictionary table => "{" + string.Join(", ", table.Keys.Cast<object>().Select(key => to_str(key) + ": " + to_str(table[key]))) + "}",
            IEnumerable items => "[" + string.Join(", ", items.Cast<object?>().Select(to_str)) + "]",
            _ => value.ToString() ?? "",
        };

        public static void print(object? value) => Console.Out.WriteLine(to_str(value));

        // The name a program gave an enum member, from the C# the generator spelled for it (compiler/codegen/types.py):
        // a suffix "__f" where it met a type's name, "__u" where it met a generated name, "v" before underscores alone.
        // The least (direction -1) or greatest (1) item in Kite's order; the first of equals, as Enumerable.Min does.
        private static T Extreme<T>(IEnumerable<T> items, int direction, string function)
        {
            var order = Runtime.Order<T>();
            using var walk = items.GetEnumerator();
            if (!walk.MoveNext())
            {
                throw new InvalidOperationException(function + "() of an empty collection");
            }
            var best = walk.Current;
            while (walk.MoveNext())
            {
                if (order.Compare(walk.Current, best) * direction > 0)
                {
                    best = walk.Current;
                }
            }
            return best;
        }

        private static string KiteName(string spelled)
        {
            var name = spelled.EndsWith("__f", StringComparison.Ordinal) ? spelled[..^3] : spelled;
            name = name.EndsWith("__u", StringComparison.Ordinal) ? name[..^3] : name;
            return name.StartsWith('v') && name.Length > 1 && name[1..].Trim('_').Length == 0 ? name[1..] : name;
        }
    }

    /// <summary>A string being ordered (Runtime.Ordered): named as Kite names it, so a comparison C# refuses says
    /// `Kite.str` and `int`.</summary>
#pragma warning disable CS8981 // lowercase on purpose: it is Kite's name for the type
    public readonly struct str
#pragma warning restore CS8981
    {
        private readonly string text;

        public str(string text) => this.text = text;

        public static bool operator <(str left, str right) => string.CompareOrdinal(left.text, right.text) < 0;
        public static bool operator <=(str left, str right) => string.CompareOrdinal(left.text, right.text) <= 0;
        public static bool operator >(str left, str right) => string.CompareOrdinal(left.text, right.text) > 0;
        public static bool operator >=(str left, str right) => string.CompareOrdinal(left.text, right.text) >= 0;
    }

    /// <summary>Marks a method generated from a Kite `test` block.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class TestAttribute : Attribute
    {
        public TestAttribute(string name, int line)
        {
            Name = name;
            Line = line;
        }

        public string Name { get; }
        public int Line { get; }
    }

    /// <summary>A failed expect; the message is what the test report shows.</summary>
    public sealed class ExpectationFailed : Exception
    {
        public ExpectationFailed(string message) : base(message)
        {
        }

        public ExpectationFailed()
        {
        }

        public ExpectationFailed(string message, Exception inner) : base(message, inner)
        {
        }
    }

    /// <summary>A Kite record: it spells itself as a literal, its fields as literals (Runtime.Literal).</summary>
    public interface IRecord
    {
        string Literal();
    }

    /// <summary>What generated code calls; Kite programs never name it.</summary>
    public static class Runtime
    {
        public static List<T> List<T>(params T[] items) => new List<T>(items);

        // Checked arithmetic (LANGUAGE.md section 12): the C# that runs marks each operation once its operands are
        // known (Op) and unmarks it once it gave a value (Done), so an OverflowException in between is that operation.
        [ThreadStatic] private static string? operation;
        public static T Op<T>(T value, string written)
        {
            operation = written;
            return value;
        }
        public static T Done<T>(T value)
        {
            operation = null;
            return value;
        }
        public static void Done() => operation = null;

        /// <summary>An overflow said in Kite's words: `int overflow in a * b` (a decimal's: `dec overflow in ...`).</summary>
        public static string OverflowMessage(OverflowException error)
        {
            if (error.Data["kite"] is string said)
            {
                return said;
            }
            var kind = error.Message.Contains("Decimal", StringComparison.Ordinal) ? "dec" : "int";
            return operation is null ? kind + " overflow" : kind + " overflow in " + operation;
        }

        /// <summary>A test stopped by an overflow fails with its message.</summary>
        public static ExpectationFailed Overflowed(OverflowException error) => new ExpectationFailed(OverflowMessage(error), error);

        /// <summary>The standard library's own overflow: `int overflow in abs(-2147483648)`.</summary>
        public static OverflowException Overflow(string written)
        {
            var error = new OverflowException("int overflow in " + written);
            error.Data["kite"] = error.Message;
            return error;
        }

        /// <summary>A program's entry point: an overflow stops it with its Kite message, as a test fails with it.</summary>
        public static void Main(Action main)
        {
            try
            {
                main();
            }
            catch (OverflowException error)
            {
                Console.Out.Flush();
                Console.Error.WriteLine(OverflowMessage(error));
                Environment.Exit(1);
            }
        }

        // An f-string hole's format spec ({price:F2}) formats a number in the invariant culture; other values, like
        // .NET's composite formatting, ignore it and read as f-strings spell them.
        public static string Formatted(object? value, string spec) =>
            value is IFormattable number and not Enum ? number.ToString(spec, CultureInfo.InvariantCulture) : Std.to_str(value);

        public static IEnumerable<T> Iter<T>(IEnumerable<T> items) => items;
        public static IEnumerable<K> Iter<K, V>(Dictionary<K, V> table) where K : notnull => table.Keys;

        /// <summary>Kite's order: strings ordinally (never the culture), everything else as .NET orders it.</summary>
        public static IComparer<T> Order<T>() =>
            typeof(T) == typeof(string) ? (IComparer<T>)(object)StringComparer.Ordinal : Comparer<T>.Default;

        /// <summary>An operand of `<`, `<=`, `>`, `>=`: a string becomes Kite's str, which orders ordinally; anything
        /// else stays itself, so C#'s own comparison (with its promotions and nullable lifting) applies.</summary>
        public static str Ordered(string text) => new str(text);
        public static T Ordered<T>(T value) => value;

        public static bool Contains(string text, string part) => text.Contains(part, StringComparison.Ordinal);
        public static bool Contains(string text, char part) => text.Contains(part);
        public static bool Contains<K, V>(Dictionary<K, V> table, K key) where K : notnull => table.ContainsKey(key);
        public static bool Contains<T>(HashSet<T> items, T item) => items.Contains(item);
        public static bool Contains<T>(IEnumerable<T> items, T item) => items.Any(candidate => Eq(candidate, item));

        /// <summary>Kite's ==: lists element by element, maps and sets by content, records by fields.</summary>
        public static bool Eq<T>(T left, T right) => DeepEquals(left, right);

        private static bool DeepEquals(object? left, object? right)
        {
            if (ReferenceEquals(left, right))
            {
                return true;
            }
            if (left is null || right is null)
            {
                return false;
            }
            if (left is string || right is string)
            {
                return left.Equals(right);
            }
            if (left is IDictionary leftTable && right is IDictionary rightTable)
            {
                return leftTable.Count == rightTable.Count
                    && leftTable.Keys.Cast<object>().All(key => rightTable.Contains(key) && DeepEquals(leftTable[key], rightTable[key]));
            }
            if (IsSet(left) && IsSet(right))
            {
                var rightItems = ((IEnumerable)right).Cast<object?>().ToList();
                var leftItems = ((IEnumerable)left).Cast<object?>().ToList();
                return leftItems.Count == rightItems.Count && leftItems.All(item => rightItems.Any(other => DeepEquals(item, other)));
            }
            if (left is IEnumerable leftItemsInOrder && right is IEnumerable rightItemsInOrder)
            {
                return leftItemsInOrder.Cast<object?>().SequenceEqual(rightItemsInOrder.Cast<object?>(), DeepComparer.Instance);
            }
            return left.Equals(right);
        }

        private static bool IsSet(object value) =>
            value.GetType().IsGenericType && value.GetType().GetGenericTypeDefinition() == typeof(HashSet<>);

        /// <summary>A hash that agrees with Eq: collections hash by content.</summary>
        public static int Hash(params object?[] values) => DeepHash(values);

        /// <summary>Kite's == for the members of a set and the keys of a map whose type holds a collection.</summary>
        public static IEqualityComparer<T> ValueEquality<T>() => new ValueComparer<T>();

        private static int DeepHash(object? value)
        {
            switch (value)
            {
                case null:
                    return 0;
                case string text:
                    return text.GetHashCode();
                case IDictionary table:
                    // Order-free, as Eq compares maps and sets by content.
                    return table.Keys.Cast<object>().Aggregate(table.Count, (hash, key) => hash + HashCode.Combine(DeepHash(key), DeepHash(table[key])));
                case IEnumerable items when IsSet(value):
                    return items.Cast<object?>().Aggregate(0, (hash, item) => hash + DeepHash(item));
                case IEnumerable items:
                    var inOrder = new HashCode();
                    foreach (var item in items)
                    {
                        inOrder.Add(DeepHash(item));
                    }
                    return inOrder.ToHashCode();
                default:
                    return value.GetHashCode();
            }
        }

        private sealed class ValueComparer<T> : IEqualityComparer<T>
        {
            public bool Equals(T? x, T? y) => DeepEquals(x, y);

            public int GetHashCode(T obj) => DeepHash(obj);
        }

        private sealed class DeepComparer : IEqualityComparer<object?>
        {
            public static readonly DeepComparer Instance = new DeepComparer();

            public new bool Equals(object? x, object? y) => DeepEquals(x, y);

            public int GetHashCode(object? obj) => DeepHash(obj);
        }

        public static void Expect(bool condition, string source)
        {
            if (!condition)
            {
                throw new ExpectationFailed("expect " + source);
            }
        }

        public static void ExpectEqual<T>(T left, T right, string source)
        {
            if (!Eq(left, right))
            {
                throw new ExpectationFailed("expect " + source + " (left: " + Literal(left) + ", right: " + Literal(right) + ")");
            }
        }

        /// <summary>A value as a Kite literal, so no two different values read alike (LANGUAGE.md section 12): a str
        /// quoted with Kite's escapes, a char in single quotes, inside lists, maps and records too.</summary>
        public static string Literal(object? value) => value switch
        {
            string text => Quoted(text, '"'),
            char letter => Quoted(letter.ToString(), '\''),
            IRecord record => record.Literal(),
            IDictionary table => "{" + string.Join(", ", table.Keys.Cast<object>().Select(key => Literal(key) + ": " + Literal(table[key]))) + "}",
            IEnumerable items => "[" + string.Join(", ", items.Cast<object?>().Select(Literal)) + "]",
            _ => Std.to_str(value),
        };

        private static string Quoted(string text, char quote)
        {
            var quoted = new System.Text.StringBuilder().Append(quote);
            foreach (var character in text)
            {
                quoted.Append(character switch
                {
                    '\\' => "\\\\",
                    '\n' => "\\n",
                    '\t' => "\\t",
                    '\r' => "\\r",
                    _ when character == quote => "\\" + quote,
                    _ when char.IsControl(character) => "\\u" + ((int)character).ToString("x4", CultureInfo.InvariantCulture),
                    _ => character.ToString(),
                });
            }
            return quoted.Append(quote).ToString();
        }

        /// <summary>Output never depends on the machine's locale.</summary>
        public static void UseInvariantCulture()
        {
            CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
            CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        }
    }
}
