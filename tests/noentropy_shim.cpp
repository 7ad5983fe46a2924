// LD_PRELOAD shim for tests/no_entropy_test.cpp: a machine without OS entropy.
// getrandom/getentropy fail (EPERM, as under a seccomp filter; ENOSYS, as on a pre-3.17
// kernel, when FAIRDECK_SHIM_ENOSYS is set) and /dev/random, /dev/urandom cannot be opened.
// With FAIRDECK_SHIM_FSYNC_LOG=FILE it instead leaves entropy alone and appends "dir" or
// "file" to FILE for every fsync() (tests that a seed file's directory is synced).
// Built without sanitizers: /bin/sh loads it too.
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace {

int fail_errno() { return std::getenv("FAIRDECK_SHIM_ENOSYS") ? ENOSYS : EPERM; }

const char* fsync_log() { return std::getenv("FAIRDECK_SHIM_FSYNC_LOG"); }

bool is_random_device(const char* path) {
  return path && !fsync_log() && (std::strcmp(path, "/dev/random") == 0 || std::strcmp(path, "/dev/urandom") == 0 ||
                  std::strcmp(path, "/dev/srandom") == 0 || std::strcmp(path, "/dev/arandom") == 0);
}

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

mode_t mode_arg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

ssize_t getrandom(void* buf, size_t len, unsigned flags) {
  if (fsync_log()) return next<ssize_t (*)(void*, size_t, unsigned)>("getrandom")(buf, len, flags);
  errno = fail_errno();
  return -1;
}

int getentropy(void* buf, size_t len) {
  if (fsync_log()) return next<int (*)(void*, size_t)>("getentropy")(buf, len);
  errno = fail_errno();
  return -1;
}

int fsync(int fd) {
  if (const char* log = fsync_log()) {
    struct stat st {};
    const bool dir = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    if (FILE* f = next<FILE* (*)(const char*, const char*)>("fopen")(log, "a")) {
      std::fputs(dir ? "dir\n" : "file\n", f);
      std::fclose(f);
    }
  }
  return next<int (*)(int)>("fsync")(fd);
}

#define FAIRDECK_SHIM_OPEN(name)                                          \
  int name(const char* path, int flags, ...) {                            \
    va_list ap;                                                           \
    va_start(ap, flags);                                                  \
    const mode_t mode = mode_arg(flags, ap);                              \
    va_end(ap);                                                           \
    if (is_random_device(path)) {                                         \
      errno = EACCES;                                                     \
      return -1;                                                          \
    }                                                                     \
    return next<int (*)(const char*, int, ...)>(#name)(path, flags, mode); \
  }
FAIRDECK_SHIM_OPEN(open)
FAIRDECK_SHIM_OPEN(open64)

#define FAIRDECK_SHIM_OPENAT(name)                                                 \
  int name(int dir, const char* path, int flags, ...) {                            \
    va_list ap;                                                                    \
    va_start(ap, flags);                                                           \
    const mode_t mode = mode_arg(flags, ap);                                       \
    va_end(ap);                                                                    \
    if (is_random_device(path)) {                                                  \
      errno = EACCES;                                                              \
      return -1;                                                                   \
    }                                                                              \
    return next<int (*)(int, const char*, int, ...)>(#name)(dir, path, flags, mode); \
  }
FAIRDECK_SHIM_OPENAT(openat)
FAIRDECK_SHIM_OPENAT(openat64)

int __open_2(const char* path, int flags) {
  if (is_random_device(path)) {
    errno = EACCES;
    return -1;
  }
  return next<int (*)(const char*, int)>("__open_2")(path, flags);
}

FILE* fopen(const char* path, const char* mode) {
  if (is_random_device(path)) {
    errno = EACCES;
    return nullptr;
  }
  return next<FILE* (*)(const char*, const char*)>("fopen")(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
  if (is_random_device(path)) {
    errno = EACCES;
    return nullptr;
  }
  return next<FILE* (*)(const char*, const char*)>("fopen64")(path, mode);
}

}  // extern "C"
