// Golden vectors from Go: rand.New(rand.NewSource(S)).Shuffle(n, swap) on 0..n-1.
// Usage: go run shuffle_go.go S... (S as an unsigned 64-bit pattern of the int64 seed);
// output as ShuffleJava.java (tests/runtimes/cases.txt).
package main

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
)

func main() {
	lengths := []int{52, 52, 52, 1, 2, 10, 1000}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, arg := range os.Args[1:] {
		u, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			panic(err)
		}
		r := rand.New(rand.NewSource(int64(u)))
		for k, n := range lengths {
			list := make([]int, n)
			for i := range list {
				list[i] = i
			}
			r.Shuffle(n, func(i, j int) { list[i], list[j] = list[j], list[i] })
			fmt.Fprintf(w, "%d %d %d", u, n, k+1)
			for _, v := range list {
				fmt.Fprintf(w, " %d", v)
			}
			fmt.Fprintln(w)
		}
	}
}
