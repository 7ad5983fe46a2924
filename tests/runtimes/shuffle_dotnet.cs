// Golden vectors from Mono (.NET Framework System.Random): new Random(S) with the
// Fisher-Yates idiom ("fy") or list.OrderBy(_ => r.Next()).ToList() ("orderby") on 0..n-1.
// Usage: mono shuffle_dotnet.exe fy|orderby S... ; output as ShuffleJava.java (tests/runtimes/cases.txt).
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

public static class ShuffleDotnet {
  static readonly int[] Lengths = {52, 52, 52, 1, 2, 10, 1000};

  public static void Main(string[] args) {
    bool orderby = args[0] == "orderby";
    var sb = new StringBuilder();
    for (int a = 1; a < args.Length; a++) {
      int seed = int.Parse(args[a]);
      var r = new Random(seed);
      for (int k = 0; k < Lengths.Length; k++) {
        var list = Enumerable.Range(0, Lengths[k]).ToList();
        if (orderby) {
          list = list.OrderBy(_ => r.Next()).ToList();
        } else {
          for (int i = list.Count - 1; i > 0; i--) {
            int j = r.Next(i + 1);
            int t = list[i]; list[i] = list[j]; list[j] = t;
          }
        }
        sb.Append(seed).Append(' ').Append(Lengths[k]).Append(' ').Append(k + 1);
        foreach (int v in list) sb.Append(' ').Append(v);
        sb.Append('\n');
      }
    }
    Console.Write(sb.ToString());
  }
}
