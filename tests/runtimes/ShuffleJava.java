// Golden vectors from OpenJDK: Collections.shuffle(list, new Random(S)) on the list 0..n-1.
// Usage: java ShuffleJava.java S... ; per seed one Random shuffles fresh lists of the lengths
// below in turn, printing "S N K list" (K = 1, 2, ...: the call on that Random; the golden
// format of tests/runtimes/cases.txt).
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

public class ShuffleJava {
  static final int[] LENGTHS = {52, 52, 52, 1, 2, 10, 1000};

  public static void main(String[] args) {
    StringBuilder out = new StringBuilder();
    for (String arg : args) {
      long seed = Long.parseUnsignedLong(arg);
      Random rnd = new Random(seed);
      for (int k = 0; k < LENGTHS.length; k++) {
        List<Integer> list = new ArrayList<>();
        for (int i = 0; i < LENGTHS[k]; i++) list.add(i);
        Collections.shuffle(list, rnd);
        out.append(Long.toUnsignedString(seed)).append(' ').append(LENGTHS[k]).append(' ').append(k + 1);
        for (int v : list) out.append(' ').append(v);
        out.append('\n');
      }
    }
    System.out.print(out);
  }
}
