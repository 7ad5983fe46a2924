// Sizes as people type them (`--memory 600M`, `2G`, `512KiB`, `1048576`) and as they read
// them back in messages.
//
// Units are binary, as in sort(1) -S, GNU shuf and terashuf: K = KiB = 2^10, M = 2^20,
// G = 2^30, T = 2^40; an optional trailing `B`/`iB` is accepted (`600MB` = `600MiB`).
// A decimal fraction is allowed before a unit (`1.5G`), rounded down to whole bytes.
// Anything else (empty, a sign, spaces, an unknown unit, more than 2^62 bytes) is refused
// with std::invalid_argument naming the text — never clamped or wrapped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fairdeck {

[[nodiscard]] std::uint64_t parse_byte_size(std::string_view text);
// "512 B", "1.5 KiB", "600 MiB", "2.0 GiB": three significant digits, binary units.
[[nodiscard]] std::string format_byte_size(std::uint64_t bytes);

}  // namespace fairdeck
