#include "harness/cli/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace vb {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler may touch only lock-free atomics");

extern "C" void record_signal(int signal) {
  g_signal.store(signal, std::memory_order_relaxed);
  // write(2) is async-signal-safe; stdio is not.
  constexpr char kMessage[] =
      "\nverifybench: interrupted: finishing the case in progress, then writing the reports of the "
      "cases completed (signal again to quit at once, writing nothing)\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal takes the default action: the process ends
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* signal_name(int signal) { return signal == SIGTERM ? "SIGTERM" : "SIGINT"; }

int exit_code_for_signal(int signal) { return 128 + signal; }

void raise_test_signal_after(std::size_t cases_completed) {
  const char* setting = std::getenv("VB_TEST_SIGNAL_AFTER_CASES");
  if (setting == nullptr) return;
  char* end = nullptr;
  const unsigned long after = std::strtoul(setting, &end, 10);
  if (after != cases_completed || end == setting || *end != ':') return;
  if (std::strcmp(end + 1, "INT") == 0) std::raise(SIGINT);
  if (std::strcmp(end + 1, "TERM") == 0) std::raise(SIGTERM);
}

}  // namespace vb
