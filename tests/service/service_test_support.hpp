// Temporary directories for the service tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace fairdeck::service {

struct test_dir {
  std::filesystem::path path;
  test_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fairdeck-svc-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  test_dir(const test_dir&) = delete;
  test_dir& operator=(const test_dir&) = delete;
  ~test_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace fairdeck::service
