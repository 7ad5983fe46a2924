// The player's own verifier: web/verify.html, embedded in the library at build time.
//
// One self-contained HTML page (inline script and style, a Content-Security-Policy that forbids
// every network request) that re-derives deals and checks a table's whole log in the player's
// browser with WebCrypto, implementing docs/provably-fair.md and docs/log-format.md
// independently of the C++ code. `fairdeck fair page` writes it and `fairdeckd` serves it at
// GET /verify; both give exactly these bytes, so a player can compare what they were served
// with the published file. How to use it and how it is tested: docs/verify-page.md.
#pragma once

#include <string_view>

namespace fairdeck::fair {

// The bytes of web/verify.html as of this build (UTF-8 HTML, no terminating NUL counted).
[[nodiscard]] std::string_view verify_page() noexcept;

}  // namespace fairdeck::fair
