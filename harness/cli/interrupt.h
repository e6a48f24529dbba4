// SIGINT and SIGTERM during `verifybench run`: the handler only records the signal; the run
// checks between cases, lets the case in progress finish, and writes the report set of the
// cases it completed, marked partial (docs/cli.md, "run").
#pragma once
#include <cstddef>

namespace vb {

// Installs the handler for SIGINT and SIGTERM. The first one of either is recorded and says
// on stderr what happens next; a second one ends the process at once (the default action).
void install_interrupt_handlers();

// The signal received since install_interrupt_handlers(), or 0.
int interrupt_signal();

// "SIGINT" or "SIGTERM", the two signals the handler takes.
const char* signal_name(int signal);

// The exit status of a run stopped by `signal`: 128 + its number (130 SIGINT, 143 SIGTERM),
// as a shell reports a process the signal ended.
int exit_code_for_signal(int signal);

// Tests only: with VB_TEST_SIGNAL_AFTER_CASES=N:INT (or :TERM) in the environment, raises that
// signal in this process once N cases have completed, so a test stops a run deterministically.
void raise_test_signal_after(std::size_t cases_completed);

}  // namespace vb
