// Golden vectors from a C++ standard library: std::shuffle(b, e, Engine(S)), built once with
// g++/libstdc++ and once with clang++ -stdlib=libc++. Usage: gen_cxx mt19937|default cases.txt
// Output format: tests/runtimes/cases.txt.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::uint64_t fnv1a64(const std::vector<std::uint32_t>& v) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (std::uint32_t x : v)
    for (int b = 0; b < 4; ++b) h = (h ^ ((x >> (8 * b)) & 0xffu)) * 0x100000001b3u;
  return h;
}

template <class Engine>
int run(const char* cases) {
  std::ifstream in(cases);
  if (!in) return std::fprintf(stderr, "gen_cxx: cannot read %s\n", cases), 1;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    unsigned long seed = 0;  // the engines' constructors take result_type = uint_fast32_t
    std::size_t n = 0, shuffles = 0;
    if (!(fields >> seed >> n >> shuffles)) return std::fprintf(stderr, "gen_cxx: bad line: %s\n", line.c_str()), 1;
    Engine g(static_cast<typename Engine::result_type>(seed));
    std::vector<std::uint32_t> a(n);
    for (std::size_t k = 1; k <= shuffles; ++k) {
      std::iota(a.begin(), a.end(), 0u);
      std::shuffle(a.begin(), a.end(), g);
      std::printf("%lu %zu %zu", seed, n, k);
      if (n > 1000) {
        std::printf(" fnv1a64=%016" PRIx64, fnv1a64(a));
      } else {
        for (std::uint32_t x : a) std::printf(" %u", x);
      }
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  static_assert(sizeof(unsigned long) == 8, "golden vectors are for LP64");
  const std::string engine = argc == 3 ? argv[1] : "";
  if (engine == "mt19937") return run<std::mt19937>(argv[2]);
  if (engine == "default") return run<std::default_random_engine>(argv[2]);
  std::fprintf(stderr, "usage: gen_cxx mt19937|default cases.txt\n");
  return 2;
}
