// Helpers shared by the fair_*_test.cpp files.
#pragma once

#include <stdlib.h>

#include <filesystem>

namespace fairdeck::testing {

// A fresh empty directory, removed with everything in it when the object dies.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    char tmpl[] = "/tmp/fairdeck_fair_test_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() { std::filesystem::remove_all(path); }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace fairdeck::testing
