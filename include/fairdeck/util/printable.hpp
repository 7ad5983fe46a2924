// User text quoted in an error message: printable ASCII and well-formed UTF-8 beyond ASCII
// are kept; control bytes (ESC, BEL, CR, ...), DEL and malformed bytes become \xNN, so an
// error can never drive the terminal it is printed on. Long text is cut ("...").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fairdeck {

[[nodiscard]] std::string printable(std::string_view text, std::size_t max_bytes = 40);

}  // namespace fairdeck
