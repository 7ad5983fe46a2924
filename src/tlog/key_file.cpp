// Signer key files: see include/fairdeck/tlog/key_file.hpp.
#include "fairdeck/tlog/key_file.hpp"

#include <algorithm>
#include <vector>

#include "fairdeck/util/internal/wipe.hpp"
#include "fairdeck/util/read_input.hpp"
#include "fairdeck/util/secret_file.hpp"

namespace fairdeck::tlog {

void create_signer_key_file(const std::filesystem::path& path, const note_signer& signer) {
  std::string text = signer.secret_text();
  const detail::wipe_on_exit wipe_text(text.data(), text.size());
  std::vector<char> line(text.size() + 1, '\n');  // the text and its newline in one buffer, never grown
  const detail::wipe_on_exit wipe_line(line.data(), line.size());
  std::copy(text.begin(), text.end(), line.begin());
  create_secret_file(path, std::string_view(line.data(), line.size()));
}

note_signer read_signer_key_file(const std::string& path, std::string_view what) {
  std::string text = read_secret_file(path, 4096, what);
  const detail::wipe_on_exit wipe(text.data(), text.size());
  std::string_view s(text);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return note_signer::parse(s);
}

}  // namespace fairdeck::tlog
