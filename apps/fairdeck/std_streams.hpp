// The one check that results printed on standard output really got there (disk full,
// /dev/full, a broken pipe end): main() runs it after every subcommand; a command that must
// undo something when its output is lost (fair commit) runs it before returning.
#pragma once

namespace fairdeck::cli {

// fflush(stdout) and its error flag; throws fairdeck::output_error (kind io, path "-")
// naming "standard output" and the OS reason.
void flush_standard_output();

}  // namespace fairdeck::cli
