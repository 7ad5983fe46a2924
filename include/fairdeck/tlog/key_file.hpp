// A note signer's secret key in a file of its own, as `fairdeck witness` keeps its
// cosignature/v1 key (--generate-key NAME --witness-key FILE, docs/cli-log.md): the signer key
// text "PRIVATE+KEY+name+keyid+base64" and a newline. Every copy of the key these functions
// make is wiped (sodium_memzero), on every path.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "fairdeck/tlog/note.hpp"

namespace fairdeck::tlog {

// Creates `path` holding the signer's key text and a newline: new only, mode 0600, synced
// (create_secret_file, util/secret_file.hpp). Throws secret_file_error.
void create_signer_key_file(const std::filesystem::path& path, const note_signer& signer);

// The signer key in `path`: a regular file no one but its owner may read, write or run (mode
// & 077 == 0, as fairdeckd's key file), at most 4096 bytes, blanks around the text ignored.
// Throws std::runtime_error naming `what` and the path when it cannot be read or others may
// read it (read_secret_file, util/read_input.hpp), malformed (naming no part of the key) when
// it holds no signer key.
[[nodiscard]] note_signer read_signer_key_file(const std::string& path, std::string_view what = "signer key file");

}  // namespace fairdeck::tlog
